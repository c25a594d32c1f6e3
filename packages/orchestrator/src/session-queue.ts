import type { ContentBlock, MessageEntry, TurnEvent, TurnOutcome } from '@keel/spec';
import { adoptingFence } from './adopting-fence';
import { claimTurn } from './claimed-turn';
import { runTurn, type TurnInput } from './run-turn';
import { type LiveTurn, stopForShutdown, type TurnRuntime } from './turn-runtime';

export interface SubmitRequest {
  sessionId: string;
  content: ContentBlock[];
  clientMessageId?: string;
  signal?: AbortSignal;
  /** Events of the turn that answers this message (and, with `steer`, of the turn it is folded into). */
  onEvent?: (event: TurnEvent) => void;
}

/** One turn per session at a time in this process, and what arrives meanwhile. */
export interface SessionQueue {
  submit(request: SubmitRequest): Promise<TurnOutcome>;
  /** Answers a message already in the transcript (crash recovery). */
  answer(sessionId: string, message: MessageEntry, signal?: AbortSignal): Promise<TurnOutcome>;
  /** Runs other session work (a manual compaction) between turns, never beside one. */
  exclusive<T>(sessionId: string, task: () => Promise<T>): Promise<T>;
  running(sessionId: string): LiveTurn | undefined;
  /** Every running turn. */
  all(): LiveTurn[];
  /** Resolves once no turn runs and none is queued. */
  idle(): Promise<void>;
  stats(): { runningTurns: number; queuedTurns: number };
}

interface Slot {
  running: LiveTurn | undefined;
  /** The tail of the session's chain of work. */
  tail: Promise<unknown>;
  queued: number;
}

/**
 * Turns of one session run one after another. A message that arrives while a turn runs is
 * written at once through that turn's fence (an owned write: the running turn is not taken
 * over) and is answered by the next turn (`followup`) or folded into the running one at its next
 * model call (`steer`; a message the running turn never got to fold is answered next). A repeated
 * `clientMessageId` joins the answer already on its way and never writes the message twice.
 * Queued messages another gateway wrote for the running turn (adopted by its fence) are treated
 * exactly like messages written through it here.
 */
export function createSessionQueue(runtime: TurnRuntime): SessionQueue {
  const slots = new Map<string, Slot>();
  const inFlight = new Map<string, Promise<TurnOutcome>>();

  function slotOf(sessionId: string): Slot {
    let slot = slots.get(sessionId);
    if (slot === undefined) {
      slot = { running: undefined, tail: Promise.resolve(), queued: 0 };
      slots.set(sessionId, slot);
    }
    return slot;
  }

  function chain<T>(sessionId: string, work: (slot: Slot) => Promise<T>): Promise<T> {
    const slot = slotOf(sessionId);
    slot.queued += 1;
    const result = slot.tail.then(() => work(slot));
    slot.tail = result
      .catch(() => undefined)
      .finally(() => {
        slot.queued -= 1;
        if (slot.queued === 0 && slot.running === undefined) slots.delete(sessionId);
      });
    return result;
  }

  /** Queues the turn for `input`, registered under its client message id while on its way. */
  function enqueue(
    sessionId: string,
    input: TurnInput,
    signal: AbortSignal | undefined,
    onEvent?: (event: TurnEvent) => void,
  ) {
    const clientMessageId =
      input.type === 'existing' ? input.message.clientMessageId : input.clientMessageId;
    const key = clientMessageId === undefined ? undefined : keyOf(sessionId, clientMessageId);
    const outcome = chain(sessionId, async (slot) => {
      for (let current = input; ; ) {
        const turn = createLiveTurn(runtime, sessionId, current, signal);
        turn.fence = adoptingFence(turn.fence, (messages) => adopt(turn, messages));
        if (runtime.stopping) stopForShutdown(turn);
        slot.running = turn;
        const unwatch =
          onEvent === undefined ? undefined : runtime.emitter.watch(turn.turnId, onEvent);
        try {
          const claimed =
            runtime.claims === undefined
              ? undefined
              : await claimTurn(runtime, runtime.claims, turn, current);
          if (claimed?.type === 'free') {
            current = { type: 'existing', message: claimed.message };
            continue;
          }
          if (claimed?.type === 'answered') return answeredElsewhere(turn, claimed.outcome);
          try {
            return await runTurn(runtime, turn, current);
          } finally {
            await claimed?.release();
          }
        } finally {
          slot.running = undefined;
          unwatch?.();
          turn.dispose();
        }
      }
    });
    if (key !== undefined) track(key, outcome);
    return outcome;
  }

  /** The outcome of a message another gateway's turn answered: one turn start and end here. */
  function answeredElsewhere(turn: LiveTurn, outcome: TurnOutcome): TurnOutcome {
    const at = runtime.clock.now();
    const { sessionId, turnId } = turn;
    const { messageId, clientMessageId } = outcome;
    runtime.emitter.emit({
      sessionId,
      turnId,
      at,
      type: 'turn-start',
      messageId,
      ...(clientMessageId === undefined ? {} : { clientMessageId }),
    });
    runtime.emitter.emit({ sessionId, turnId, at, type: 'turn-end', outcome });
    return outcome;
  }

  function track(key: string, outcome: Promise<TurnOutcome>): void {
    inFlight.set(key, outcome);
    const forget = () => {
      if (inFlight.get(key) === outcome) inFlight.delete(key);
    };
    outcome.then(forget, forget);
  }

  async function writeThroughRunning(
    request: SubmitRequest,
    turn: LiveTurn,
  ): Promise<MessageEntry | undefined> {
    if (turn.fence.status !== 'held' && turn.fence.status !== 'released') return undefined;
    const message = runtime.entries.message({
      role: 'user',
      content: request.content,
      ...(request.clientMessageId === undefined
        ? {}
        : { clientMessageId: request.clientMessageId }),
    });
    try {
      await turn.fence.append(
        [message],
        request.signal === undefined ? {} : { signal: request.signal },
      );
    } catch {
      // The running turn ended or lost the session meanwhile: this message waits for its own turn.
      return undefined;
    }
    arrive(turn, message);
    return message;
  }

  /** A message written while `turn` runs: the turn knows it, folds it in (`steer`) or leaves it. */
  function arrive(turn: LiveTurn, message: MessageEntry): void {
    turn.entries.push(message);
    turn.arrived.push(message.messageId);
    runtime.emitter.emit({
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      at: runtime.clock.now(),
      type: 'message-queued',
      messageId: message.messageId,
      mode: runtime.settings.queueMode,
    });
  }

  /**
   * Queued messages another gateway wrote while `turn` ran, adopted by its fence: they arrive as
   * if written through it here, and each gets the turn that answers it (nothing runs for one the
   * running turn folded in, or one whose answer is already on its way here).
   */
  function adopt(turn: LiveTurn, messages: MessageEntry[]): void {
    for (const message of messages) {
      arrive(turn, message);
      const key =
        message.clientMessageId === undefined
          ? undefined
          : keyOf(turn.sessionId, message.clientMessageId);
      if (key !== undefined && inFlight.has(key)) continue;
      enqueue(turn.sessionId, { type: 'existing', message }, undefined).catch(() => undefined);
    }
  }

  async function submit(request: SubmitRequest): Promise<TurnOutcome> {
    let running = slotOf(request.sessionId).running;
    // A repeat can only be recognised once the running turn holds the whole transcript.
    while (running !== undefined && request.clientMessageId !== undefined) {
      const current = running;
      await current.prepared;
      running = slotOf(request.sessionId).running;
      if (running === current) break;
    }
    if (running !== undefined && request.clientMessageId !== undefined) {
      // A repeat of a message the running turn holds (recovered, or queued through it) joins its answer.
      const known = running.entries.find(
        (entry): entry is MessageEntry =>
          entry.type === 'message' &&
          entry.role === 'user' &&
          entry.clientMessageId === request.clientMessageId,
      );
      if (known !== undefined)
        return enqueue(
          request.sessionId,
          { type: 'existing', message: known },
          request.signal,
          request.onEvent,
        );
    }
    const written = running === undefined ? undefined : await writeThroughRunning(request, running);
    // Folded into the running turn (`steer`), the message's answer may come from that turn.
    const unwatch =
      running !== undefined &&
      written !== undefined &&
      request.onEvent !== undefined &&
      runtime.settings.queueMode === 'steer'
        ? runtime.emitter.watch(running.turnId, request.onEvent)
        : undefined;
    const input: TurnInput =
      written !== undefined
        ? { type: 'existing', message: written }
        : {
            type: 'new',
            content: request.content,
            ...(request.clientMessageId === undefined
              ? {}
              : { clientMessageId: request.clientMessageId }),
          };
    try {
      return await enqueue(request.sessionId, input, request.signal, request.onEvent);
    } finally {
      unwatch?.();
    }
  }

  return {
    submit(request) {
      const key =
        request.clientMessageId === undefined
          ? undefined
          : keyOf(request.sessionId, request.clientMessageId);
      const existing = key === undefined ? undefined : inFlight.get(key);
      if (existing !== undefined) return existing;
      const outcome = submit(request);
      if (key !== undefined) track(key, outcome);
      return outcome;
    },
    answer(sessionId, message, signal) {
      const key =
        message.clientMessageId === undefined
          ? undefined
          : keyOf(sessionId, message.clientMessageId);
      const existing = key === undefined ? undefined : inFlight.get(key);
      return existing ?? enqueue(sessionId, { type: 'existing', message }, signal);
    },
    exclusive(sessionId, task) {
      return chain(sessionId, () => task());
    },
    running(sessionId) {
      return slots.get(sessionId)?.running;
    },
    all() {
      return [...slots.values()].flatMap((slot) =>
        slot.running === undefined ? [] : [slot.running],
      );
    },
    stats() {
      let runningTurns = 0;
      let queuedTurns = 0;
      for (const slot of slots.values()) {
        const running = slot.running === undefined ? 0 : 1;
        runningTurns += running;
        queuedTurns += Math.max(0, slot.queued - running);
      }
      return { runningTurns, queuedTurns };
    },
    async idle() {
      while (slots.size > 0) await Promise.all([...slots.values()].map((slot) => slot.tail));
    },
  };
}

function keyOf(sessionId: string, clientMessageId: string): string {
  return `${sessionId}\u0000${clientMessageId}`;
}

type DisposableTurn = LiveTurn & { dispose(): void };

function createLiveTurn(
  runtime: TurnRuntime,
  sessionId: string,
  input: TurnInput,
  signal: AbortSignal | undefined,
): DisposableTurn {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', onAbort, { once: true });
  const message = input.type === 'existing' ? input.message : undefined;
  let markPrepared: () => void = () => undefined;
  const prepared = new Promise<void>((resolve) => {
    markPrepared = resolve;
  });
  return {
    prepared,
    markPrepared: () => markPrepared(),
    sessionId,
    turnId: runtime.createId(),
    messageId: message?.messageId ?? runtime.createId(),
    clientMessageId:
      message?.clientMessageId ?? (input.type === 'new' ? input.clientMessageId : undefined),
    fence: runtime.fences(sessionId),
    entries: [],
    arrived: [],
    folded: new Set(),
    requestedModel: undefined,
    controller,
    stopReason: undefined,
    dispose() {
      markPrepared();
      signal?.removeEventListener('abort', onAbort);
    },
  };
}
