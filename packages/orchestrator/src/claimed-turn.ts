import type { MessageEntry, TurnOutcome } from '@keel/spec';
import { outcomeForError, storedOutcome, type TurnInput } from './run-turn';
import { transcriptFacts } from './transcript-facts';
import type { ClaimSettings, LiveTurn, TurnRuntime } from './turn-runtime';

/**
 * Where a turn runs across gateways: `here`, holding the session's turn claim (heartbeated every
 * third of its ttl until `release`); `answered` by another gateway's turn; or `free` again with
 * its message unanswered (the gateway that ran the turn is gone): claim once more.
 */
export type ClaimedTurn =
  | { type: 'here'; release(): Promise<void> }
  | { type: 'answered'; outcome: TurnOutcome }
  | { type: 'free'; message: MessageEntry };

/**
 * Claims the session's turn for `turn`; while another gateway holds it, writes the message there
 * as queued (unless the transcript holds it already: a repeat, or a message written before) and
 * waits for the turn end that answers it, reading the transcript again when the store announces a
 * change of the session (`waitForChange`) and at least every `pollMs`.
 */
export async function claimTurn(
  runtime: TurnRuntime,
  claims: ClaimSettings,
  turn: LiveTurn,
  input: TurnInput,
): Promise<ClaimedTurn> {
  const signal = turn.controller.signal;
  try {
    const result = await claims.turnClaims.claimTurn(turn.sessionId, {
      owner: claims.gatewayId,
      turnId: turn.turnId,
      ttlMs: claims.ttlMs,
      signal,
    });
    if (result.claimed) {
      const { claim } = result;
      const timer = setInterval(
        () => void claim.heartbeat().catch(() => clearInterval(timer)),
        Math.max(1, Math.floor(claims.ttlMs / 3)),
      );
      timer.unref?.();
      return {
        type: 'here',
        async release() {
          clearInterval(timer);
          await claim.release().catch(() => undefined);
        },
      };
    }
    return await answeredElsewhere(runtime, claims, turn, input);
  } catch (error) {
    return { type: 'answered', outcome: outcomeForError(runtime, turn, error) };
  }
}

async function answeredElsewhere(
  runtime: TurnRuntime,
  claims: ClaimSettings,
  turn: LiveTurn,
  input: TurnInput,
): Promise<ClaimedTurn> {
  const { sessionId } = turn;
  const signal = turn.controller.signal;
  // Nothing of the transcript is held here: a message arriving meanwhile is not a repeat of it.
  turn.markPrepared();
  let message = input.type === 'existing' ? input.message : undefined;
  if (message === undefined && input.type === 'new' && input.clientMessageId !== undefined) {
    const { entries } = await runtime.storage.read(sessionId, { signal });
    message = transcriptFacts(entries).byClientMessageId.get(input.clientMessageId);
  }
  if (message === undefined && input.type === 'new') {
    const queued = runtime.entries.message({
      id: turn.messageId,
      role: 'user',
      content: input.content,
      ...(input.clientMessageId === undefined ? {} : { clientMessageId: input.clientMessageId }),
    });
    await claims.turnClaims.appendQueued(sessionId, [queued], { signal });
    message = queued;
    if (queued.clientMessageId !== undefined) {
      // Queued at another gateway meanwhile (a retry), it was not written twice: wait for that copy.
      const { entries } = await runtime.storage.read(sessionId, { signal });
      message = transcriptFacts(entries).byClientMessageId.get(queued.clientMessageId) ?? queued;
    }
  }
  if (message === undefined) throw new Error('a turn needs a message');
  turn.messageId = message.messageId;
  turn.clientMessageId = message.clientMessageId;
  for (;;) {
    const { entries } = await runtime.storage.read(sessionId, { signal });
    const answer = transcriptFacts(entries).answers.get(message.messageId);
    if (answer !== undefined) {
      return { type: 'answered', outcome: storedOutcome(message, answer, entries) };
    }
    if ((await claims.turnClaims.currentTurn(sessionId, { signal })) === undefined) {
      return { type: 'free', message };
    }
    await nextLook(claims, sessionId, signal);
  }
}

/** Until the store announces a change of the session, or `pollMs` at most. */
async function nextLook(claims: ClaimSettings, sessionId: string, signal: AbortSignal) {
  const wait = claims.turnClaims.waitForChange?.bind(claims.turnClaims);
  if (wait === undefined) return pause(claims.pollMs, signal);
  await wait(sessionId, { timeoutMs: claims.pollMs, signal });
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal.throwIfAborted();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
      resolve();
    };
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}
