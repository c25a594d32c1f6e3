import type { SessionFence, TranscriptState } from '@keel/spec';
import type { HeldClaim } from './claimed-turn';
import type { LiveTurn } from './turn-runtime';
import type { WaitingMessages } from './waiting-messages';

/** What the session queue keeps for one session while it has work. */
export interface Slot {
  running: LiveTurn | undefined;
  /** The tail of the session's chain of work. */
  tail: Promise<unknown>;
  queued: number;
  /** `steer`: messages waiting for the next turn to write its message, to be written with it. */
  waiting: WaitingMessages | undefined;
  /** Turns queued on the chain that have not started yet. */
  turnsAhead: number;
  /** The turn claim a turn that ended here handed over to the next turn (`turnsAhead` > 0). */
  kept: HeldClaim | undefined;
  /** The transcript's state as the turn that handed `kept` over left it. */
  keptSince: TranscriptState | undefined;
  /**
   * The end of the fence of the turn that just answered, still under way: the chain's next work
   * waits for it (the turn's caller does not).
   */
  closing: Promise<void> | undefined;
}

/** A session's slot with nothing running, queued or kept. */
export function createSlot(): Slot {
  return {
    running: undefined,
    tail: Promise.resolve(),
    queued: 0,
    waiting: undefined,
    turnsAhead: 0,
    kept: undefined,
    keptSince: undefined,
    closing: undefined,
  };
}

/**
 * Runs `work` after the slot's chain so far. The chain goes on once the work settled and a fence it
 * left ending (`closing`) has ended; `idle` runs then if no work is queued behind it.
 */
export function chainOn<T>(
  slot: Slot,
  work: (slot: Slot) => Promise<T>,
  idle: () => void,
): Promise<T> {
  slot.queued += 1;
  const result = slot.tail.then(() => work(slot));
  slot.tail = result
    .catch(() => undefined)
    .then(() => {
      slot.queued -= 1;
      // A turn's fence ending after its answer went out: the session's next work waits for it.
      const closing = slot.closing;
      slot.closing = undefined;
      return closing;
    })
    .finally(() => {
      if (slot.queued === 0) idle();
    });
  return result;
}

/**
 * Ends `fence` once the answer in hand had its chance to go out (the loop's next check phase),
 * as the slot's `closing`: the chain's next work waits for it.
 */
export function endAfterAnswer(slot: Slot, fence: SessionFence): void {
  slot.closing = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => fence.end())
    .catch(() => undefined);
}
