import type { MessageEntry, TurnClaim, TurnOutcome } from '@keel/spec';
import { outcomeForError, storedOutcome, type TurnInput } from './run-turn';
import { transcriptFacts } from './transcript-facts';
import type { ClaimSettings, LiveTurn, TurnRuntime } from './turn-runtime';

/**
 * Where a turn runs across gateways: `here`, holding the session's turn claim (heartbeated every
 * third of its ttl until `release`); `answered` by another gateway's turn; or `free` again with
 * its message unanswered (the gateway that ran the turn is gone): claim once more.
 */
export type ClaimedTurn =
  | { type: 'here'; claim: HeldClaim }
  | { type: 'answered'; outcome: TurnOutcome }
  | { type: 'free'; message: MessageEntry };

/** The session's turn claim as this gateway holds it, heartbeated until `release`. */
export interface HeldClaim {
  /** Lets the session's turn go (stops the heartbeat). */
  release(): Promise<void>;
  /**
   * Whether the claim still holds, for the next turn of the session here to run under it (a
   * hand-over: nothing released, nothing claimed anew, so no other gateway takes the turn in
   * between). Confirmed by the store when no claim or heartbeat did within half its ttl.
   */
  renew(): Promise<boolean>;
}

/**
 * Claims the session's turn for `turn` (or runs it under `kept`, the claim the session's turn
 * before it here handed over, while that still holds); while another gateway holds it, writes
 * the message there as queued and waits for the turn end that answers it: `claimOrQueue`, then
 * `waitElsewhere`.
 */
export async function claimTurn(
  runtime: TurnRuntime,
  claims: ClaimSettings,
  turn: LiveTurn,
  input: TurnInput,
  kept?: HeldClaim,
): Promise<ClaimedTurn> {
  const step = await claimOrQueue(runtime, claims, turn, input, kept);
  return step.type === 'elsewhere' ? waitElsewhere(runtime, turn, step.waiting) : step;
}

/** A message written (queued) for the turn another gateway holds, to wait for its answer. */
export interface WaitingElsewhere {
  claims: ClaimSettings;
  /** The message, when the turn's input named it. */
  message: MessageEntry | undefined;
  /** The message as this gateway wrote it (a new one), found by its client message id. */
  queued: MessageEntry | undefined;
}

/**
 * The first part of `claimTurn`: the claim taken (`here`), or, while another gateway holds it, the
 * message written there as queued (`elsewhere`: the store leaves it out when the transcript holds
 * it already, a repeat or a message written before) — everything that must happen in the order
 * the session's messages arrived here. A store error is the turn's outcome (`answered`).
 */
export async function claimOrQueue(
  runtime: TurnRuntime,
  claims: ClaimSettings,
  turn: LiveTurn,
  input: TurnInput,
  kept?: HeldClaim,
): Promise<
  Exclude<ClaimedTurn, { type: 'free' }> | { type: 'elsewhere'; waiting: WaitingElsewhere }
> {
  const signal = turn.controller.signal;
  try {
    if (kept !== undefined) {
      if (await kept.renew()) return { type: 'here', claim: kept };
      await kept.release();
    }
    const asked = performance.now();
    const result = await claims.turnClaims.claimTurn(turn.sessionId, {
      owner: claims.gatewayId,
      turnId: turn.turnId,
      ttlMs: claims.ttlMs,
      signal,
    });
    if (result.claimed)
      return { type: 'here', claim: holdClaim(result.claim, claims.ttlMs, asked) };
    return { type: 'elsewhere', waiting: await queueElsewhere(runtime, claims, turn, input) };
  } catch (error) {
    return { type: 'answered', outcome: outcomeForError(runtime, turn, error) };
  }
}

/**
 * The second part of `claimTurn`: waits for the turn end that answers the message, reading the
 * transcript again when the store announces a change of the session (`waitForChange`, listened
 * to before each look) and, as a backstop, when none was announced for `pollMs`: with a store that
 * announces changes, that backstop doubles each time it runs out, up to `BACKSTOP_GROWTH` times
 * `pollMs` (the announcements wake the waiter; every look reads the transcript and the claim, and
 * with many waiters the backstop's looks loaded the database the running turns need). `free`
 * when no gateway holds the claim and the message is still unanswered.
 */
export async function waitElsewhere(
  runtime: TurnRuntime,
  turn: LiveTurn,
  waiting: WaitingElsewhere,
): Promise<Exclude<ClaimedTurn, { type: 'here' }>> {
  try {
    return await answeredElsewhere(runtime, turn, waiting);
  } catch (error) {
    return { type: 'answered', outcome: outcomeForError(runtime, turn, error) };
  }
}

/** The outcome of a message another gateway's turn answered: one turn start and end here. */
export function announceAnswered(
  runtime: TurnRuntime,
  turn: LiveTurn,
  outcome: TurnOutcome,
): TurnOutcome {
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

/** How far the backstop of a waiter whose store announces changes grows: 8 × `pollMs`. */
const BACKSTOP_GROWTH = 8;

/**
 * Heartbeats `claim` every third of its ttl until released; `confirmedAt` is when the request that
 * last extended it (the claim, or a heartbeat) was sent.
 */
function holdClaim(claim: TurnClaim, ttlMs: number, confirmedAt: number): HeldClaim {
  let confirmed = confirmedAt;
  let lost = false;
  const heartbeat = async (): Promise<boolean> => {
    const sent = performance.now();
    try {
      await claim.heartbeat();
      confirmed = Math.max(confirmed, sent);
      return true;
    } catch {
      lost = true;
      clearInterval(timer);
      return false;
    }
  };
  const timer = setInterval(() => void heartbeat(), Math.max(1, Math.floor(ttlMs / 3)));
  timer.unref?.();
  return {
    async release() {
      clearInterval(timer);
      await claim.release().catch(() => undefined);
    },
    async renew() {
      if (lost || claim.released) return false;
      if (performance.now() - confirmed < ttlMs / 2) return true;
      return heartbeat();
    },
  };
}

async function queueElsewhere(
  runtime: TurnRuntime,
  claims: ClaimSettings,
  turn: LiveTurn,
  input: TurnInput,
): Promise<WaitingElsewhere> {
  // Nothing of the transcript is held here: a message arriving meanwhile is not a repeat of it.
  turn.markPrepared();
  const message = input.type === 'existing' ? input.message : undefined;
  let queued: MessageEntry | undefined;
  if (message === undefined && input.type === 'new') {
    // A copy of it stored already (a repeat, or queued at another gateway meanwhile) is not
    // written twice: `appendQueued` leaves out a client message id the transcript holds, and the
    // first look finds that copy to wait for.
    queued = runtime.entries.message({
      id: turn.messageId,
      role: 'user',
      content: input.content,
      ...(input.clientMessageId === undefined ? {} : { clientMessageId: input.clientMessageId }),
    });
    await claims.turnClaims.appendQueued(turn.sessionId, [queued], {
      signal: turn.controller.signal,
    });
  }
  return { claims, message, queued };
}

async function answeredElsewhere(
  runtime: TurnRuntime,
  turn: LiveTurn,
  waiting: WaitingElsewhere,
): Promise<Exclude<ClaimedTurn, { type: 'here' }>> {
  const { sessionId } = turn;
  const signal = turn.controller.signal;
  const { claims, queued } = waiting;
  let message = waiting.message;
  let backstopMs = claims.pollMs;
  for (;;) {
    // Listening before looking: a change announced while this gateway looks is not missed.
    const change = nextChange(claims, sessionId, backstopMs, signal);
    try {
      const { entries } = await runtime.storage.read(sessionId, { signal });
      const facts = transcriptFacts(entries);
      if (message === undefined) {
        const clientMessageId = queued?.clientMessageId;
        message =
          (clientMessageId === undefined
            ? undefined
            : facts.byClientMessageId.get(clientMessageId)) ?? queued;
        if (message === undefined) throw new Error('a turn needs a message');
        turn.messageId = message.messageId;
        turn.clientMessageId = message.clientMessageId;
      }
      const answer = facts.answers.get(message.messageId);
      if (answer !== undefined) {
        return { type: 'answered', outcome: storedOutcome(message, answer, entries) };
      }
      if ((await claims.turnClaims.currentTurn(sessionId, { signal })) === undefined) {
        return { type: 'free', message };
      }
      // Nothing announced for the whole backstop: the next one waits twice as long.
      if ((await change.next) === false)
        backstopMs = Math.min(backstopMs * 2, claims.pollMs * BACKSTOP_GROWTH);
    } finally {
      change.stop();
    }
  }
}

/**
 * The next announced change of the session (the store's `waitForChange`: `next` is `true`), or
 * `backstopMs` at most (`false`); without `waitForChange`, `backstopMs` (`undefined`, as when
 * given up: nothing could be announced, so the backstop does not grow). `stop` gives up listening.
 */
function nextChange(
  claims: ClaimSettings,
  sessionId: string,
  backstopMs: number,
  signal: AbortSignal,
) {
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal.addEventListener('abort', stop, { once: true });
  const wait = claims.turnClaims.waitForChange?.bind(claims.turnClaims);
  const waiting: Promise<boolean | undefined> =
    wait === undefined
      ? pause(backstopMs, controller.signal)
      : wait(sessionId, { timeoutMs: backstopMs, signal: controller.signal });
  // Given up (`stop`, or the turn's abort, which the next look reports): nothing to wait for.
  const next = waiting.catch(() => undefined);
  return {
    next,
    stop() {
      signal.removeEventListener('abort', stop);
      controller.abort();
    },
  };
}

function pause(ms: number, signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve, reject) => {
    signal.throwIfAborted();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
      resolve(undefined);
    };
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}
