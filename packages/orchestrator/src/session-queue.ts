import type { ContentBlock, MessageEntry, TurnEvent, TurnOutcome } from '@keel/spec';
import { adoptingFence } from './adopting-fence';
import { createClaimWaiters, type QueuedElsewhere } from './claim-waiters';
import { announceAnswered, claimOrQueue } from './claimed-turn';
import { createLiveTurn } from './create-live-turn';
import { createJoinNext } from './join-next';
import { runTurn, type TurnInput } from './run-turn';
import { chainOn, createSlot, endAfterAnswer, type Slot } from './session-slot';
import { type LiveTurn, stopForShutdown, type TurnRuntime } from './turn-runtime';

export interface SubmitRequest {
  sessionId: string;
  content: ContentBlock[];
  clientMessageId?: string;
  signal?: AbortSignal;
  /** Events of the turn that answers this message (and, with `steer`, of the turn it is folded into). */
  onEvent?: (event: TurnEvent) => void;
  /** See `RunTurnRequest.messageFlush`. */
  messageFlush?: 'own' | 'with-reply';
}

/** One turn per session at a time in this process, and what arrives meanwhile. */
export interface SessionQueue {
  submit(request: SubmitRequest): Promise<TurnOutcome>;
  /** Answers a message already in the transcript (crash recovery). */
  answer(sessionId: string, message: MessageEntry, signal?: AbortSignal): Promise<TurnOutcome>;
  /** Runs other session work (a manual compaction) between turns, never beside one. */
  exclusive<T>(sessionId: string, task: () => Promise<T>): Promise<T>;
  running(sessionId: string): LiveTurn | undefined;
  /** Whether a message of the session waits here for another gateway's turn to answer it. */
  waitingElsewhere(sessionId: string): boolean;
  /** Every running turn. */
  all(): LiveTurn[];
  /** Resolves once no turn runs and none is queued. */
  idle(): Promise<void>;
  stats(): { runningTurns: number; queuedTurns: number };
}

/**
 * Turns of one session run one after another. A message that arrives while a turn runs is
 * written at once through that turn's fence (an owned write: the running turn is not taken
 * over) and is answered by the next turn (`followup`) or folded into the running one at its next
 * model call (`steer`; a message the running turn never got to fold is answered next). A repeated
 * `clientMessageId` joins the answer already on its way and never writes the message twice.
 * Messages that arrive while no turn can take a write yet wait for the next turn to write its own
 * message and are written with it, in one append (`join-next`, `waiting-messages`): with `steer`
 * they are folded into its first model call (many concurrent messages make one turn, not one
 * each); with `followup` each is then answered by a turn of its own, in the order they came.
 * Queued messages another gateway wrote for the running turn (adopted by its fence) are treated
 * exactly like messages written through it here. A turn that ends with another turn of the
 * session waiting here hands its turn claim over to it (nothing released, nothing claimed anew).
 */
export function createSessionQueue(runtime: TurnRuntime): SessionQueue {
  const slots = new Map<string, Slot>();
  const inFlight = new Map<string, Promise<TurnOutcome>>();
  const waiters = createClaimWaiters(runtime);

  function slotOf(sessionId: string): Slot {
    let slot = slots.get(sessionId);
    if (slot === undefined) {
      slot = createSlot();
      slots.set(sessionId, slot);
    }
    return slot;
  }

  function chain<T>(sessionId: string, work: (slot: Slot) => Promise<T>): Promise<T> {
    const slot = slotOf(sessionId);
    return chainOn(slot, work, () => {
      // Nothing left to hand a kept claim to (the turn it was kept for never claimed).
      void slot.kept?.release();
      slot.kept = undefined;
      // No turn runs either: a slot's turns run only inside its chain.
      slots.delete(sessionId);
    });
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
    const outcome = queueTurn(sessionId, input, signal, onEvent);
    if (key !== undefined) track(key, outcome);
    return outcome;
  }

  /**
   * The turn for `input`: run here in the session's chain, or, while another gateway holds the
   * session's turn, its message written there as queued in the chain and its answer waited for
   * outside it — so the messages that arrive here behind it are written at once too, and each is
   * answered as soon as its own answer is stored, whatever the order the other gateway answers
   * them in (a client's retry of one joins its answer at once). A message found unanswered with
   * the claim free goes back into the chain, for a turn here.
   */
  async function queueTurn(
    sessionId: string,
    input: TurnInput,
    signal: AbortSignal | undefined,
    onEvent: ((event: TurnEvent) => void) | undefined,
  ): Promise<TurnOutcome> {
    for (let current = input; ; ) {
      const step = await inChain(sessionId, current, signal, onEvent);
      if (step.type === 'done') return step.outcome;
      const waited = await waiters.wait(step);
      if (waited.type === 'answered') return waited.outcome;
      current = { type: 'existing', message: waited.message };
    }
  }

  /** The chain's part of a turn: claimed and run here, or queued for the claim's holder. */
  function inChain(
    sessionId: string,
    input: TurnInput,
    signal: AbortSignal | undefined,
    onEvent: ((event: TurnEvent) => void) | undefined,
  ): Promise<ChainStep> {
    slotOf(sessionId).turnsAhead += 1;
    return chain(sessionId, async (slot): Promise<ChainStep> => {
      slot.turnsAhead -= 1;
      const kept = slot.kept;
      const since = slot.keptSince;
      const claims = runtime.storage.turnClaims;
      const handedOver =
        kept === undefined || since === undefined || claims === undefined
          ? undefined
          : { claims, since };
      slot.kept = undefined;
      slot.keptSince = undefined;
      const turn = createLiveTurn(runtime, sessionId, input, signal);
      turn.fence = adoptingFence(turn.fence, (messages) => adopt(turn, messages), handedOver);
      if (runtime.stopping) stopForShutdown(turn);
      slot.running = turn;
      const unwatch =
        onEvent === undefined ? undefined : runtime.emitter.watch(turn.turnId, onEvent);
      let waiting = false;
      try {
        const settings = runtime.claims;
        const claimed =
          settings === undefined
            ? undefined
            : await claimOrQueue(runtime, settings, turn, input, kept);
        if (claimed?.type === 'elsewhere') {
          // Its message waits for the other gateway's turn; the messages waiting to be written
          // with it go their own ways now (each queued there at once), not after its answer.
          input.joining?.letGo();
          waiting = true;
          return { type: 'elsewhere', turn, unwatch, waiting: claimed.waiting };
        }
        if (claimed?.type === 'answered')
          return { type: 'done', outcome: announceAnswered(runtime, turn, claimed.outcome) };
        try {
          return { type: 'done', outcome: await runTurn(runtime, turn, input) };
        } finally {
          // The fence's last check cannot change the outcome (a write found after the reply only
          // lets the lease go): without a claim it runs once the answer is out; with one, before
          // the claim goes, so the next holder finds the session let go.
          if (claimed === undefined) endAfterAnswer(slot, turn.fence);
          else await turn.fence.end().catch(() => undefined);
          // A turn waiting here (adopted or queued) runs under this claim: released, another
          // gateway's waiter could take the turn first.
          if (claimed !== undefined) {
            if (slot.turnsAhead > 0) {
              slot.kept = claimed.claim;
              slot.keptSince = turn.fence.state;
            } else await claimed.claim.release();
          }
        }
      } finally {
        slot.running = undefined;
        if (!waiting) {
          unwatch?.();
          turn.dispose();
        }
      }
    });
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
    if (turn.finished || (turn.fence.status !== 'held' && turn.fence.status !== 'released'))
      return undefined;
    // `entries.message` leaves an undefined clientMessageId out.
    const message = runtime.entries.message({
      role: 'user',
      content: request.content,
      clientMessageId: request.clientMessageId,
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
    announce(turn, message);
  }

  /** A message the turn's entries hold already: it is to be folded in (`steer`) or left. */
  function announce(turn: LiveTurn, message: MessageEntry, emitter = runtime.emitter): void {
    turn.arrived.push(message.messageId);
    emitter.emit({
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
      const known =
        running.facts?.byClientMessageId.get(request.clientMessageId) ??
        running.entries.find(
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
      // Maybe a repeat of a message let go with the entries before the live part: never written
      // through the running turn; a turn of its own looks it up in the whole transcript.
      if (running.facts?.forgotClientMessageId(request.clientMessageId) === true)
        return enqueue(request.sessionId, newInput(request), request.signal, request.onEvent);
    }
    const written = running === undefined ? undefined : await writeThroughRunning(request, running);
    if (running !== undefined && written !== undefined)
      return answerWritten(request, written, running.turnId);
    return joinNext(request);
  }

  /** A message written for the turn `turnId` (queued through it, or with its own message). */
  async function answerWritten(
    request: SubmitRequest,
    message: MessageEntry,
    turnId: string,
  ): Promise<TurnOutcome> {
    // Folded into that turn (`steer`), the message's answer may come from it.
    const unwatch =
      request.onEvent !== undefined && runtime.settings.queueMode === 'steer'
        ? runtime.emitter.watch(turnId, request.onEvent)
        : undefined;
    try {
      return await enqueue(
        request.sessionId,
        { type: 'existing', message },
        request.signal,
        request.onEvent,
      );
    } finally {
      unwatch?.();
    }
  }

  const joinNext = createJoinNext({
    runtime,
    slotOf,
    announce,
    answerWritten,
    enqueueNew: (request, joining) =>
      enqueue(
        request.sessionId,
        { ...newInput(request), joining },
        request.signal,
        request.onEvent,
      ),
  });

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
    waitingElsewhere(sessionId) {
      return waiters.has(sessionId);
    },
    all() {
      const running = [...slots.values()].flatMap((slot) =>
        slot.running === undefined ? [] : [slot.running],
      );
      return [...running, ...waiters.turns()];
    },
    stats() {
      let runningTurns = 0;
      let queuedTurns = 0;
      for (const slot of slots.values()) {
        const running = slot.running === undefined ? 0 : 1;
        runningTurns += running;
        queuedTurns += Math.max(0, slot.queued - running);
      }
      // A message waiting for another gateway's turn is queued there.
      return { runningTurns, queuedTurns: queuedTurns + waiters.size };
    },
    async idle() {
      while (slots.size > 0 || waiters.size > 0)
        await Promise.all([...[...slots.values()].map((slot) => slot.tail), ...waiters.pending()]);
    },
  };
}

/** A turn's part in its session's chain: ended there, or its message waiting for another gateway. */
type ChainStep = { type: 'done'; outcome: TurnOutcome } | ({ type: 'elsewhere' } & QueuedElsewhere);

function newInput(request: SubmitRequest): TurnInput {
  // Every reader of a turn's input takes an undefined clientMessageId for none.
  return {
    type: 'new',
    content: request.content,
    clientMessageId: request.clientMessageId,
    messageFlush: request.messageFlush,
  };
}

function keyOf(sessionId: string, clientMessageId: string): string {
  return `${sessionId}\u0000${clientMessageId}`;
}
