import type { TurnOutcome } from '@keel/spec';
import {
  announceAnswered,
  type ClaimedTurn,
  type WaitingElsewhere,
  waitElsewhere,
} from './claimed-turn';
import type { DisposableTurn } from './create-live-turn';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

/** A turn whose message was queued for another gateway's turn, as the session's chain left it. */
export interface QueuedElsewhere {
  turn: DisposableTurn;
  unwatch: (() => void) | undefined;
  waiting: WaitingElsewhere;
}

/**
 * The turns whose message waits, outside its session's chain, for another gateway's turn to answer
 * it: what the session queue counts, stops at shutdown and waits for when idle besides its chains.
 */
export function createClaimWaiters(runtime: TurnRuntime) {
  const waiters = new Map<LiveTurn, Promise<unknown>>();
  return {
    /** Waits for the answer (announced here as one turn start and end), or `free` to claim again. */
    async wait({
      turn,
      unwatch,
      waiting,
    }: QueuedElsewhere): Promise<
      { type: 'answered'; outcome: TurnOutcome } | Extract<ClaimedTurn, { type: 'free' }>
    > {
      const waited = waitElsewhere(runtime, turn, waiting);
      waiters.set(turn, waited);
      try {
        const result = await waited;
        return result.type === 'answered'
          ? { ...result, outcome: announceAnswered(runtime, turn, result.outcome) }
          : result;
      } finally {
        waiters.delete(turn);
        unwatch?.();
        turn.dispose();
      }
    },
    has: (sessionId: string) => [...waiters.keys()].some((turn) => turn.sessionId === sessionId),
    turns: () => [...waiters.keys()],
    pending: () => [...waiters.values()],
    get size() {
      return waiters.size;
    },
  };
}
