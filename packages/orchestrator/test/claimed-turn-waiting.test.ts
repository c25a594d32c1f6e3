/**
 * A turn whose session another gateway runs (`answeredElsewhere` in src/claimed-turn.ts): a new
 * message is written there as queued, a message the transcript holds already is not written
 * again; every store call carries the turn's signal; each look's listening (`waitForChange`, or a
 * pause of `pollMs` without it) ends with the look, and the turn's abort ends it at once. The other
 * gateway lets the turn go at the waiter's `freeAt`-th look at the claim; the waiter then finds the
 * turn `free`.
 */
import { getEventListeners } from 'node:events';
import type { MessageEntry, SessionTurnClaims, StorageCallOptions } from '@keel/spec';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ClaimSetup, createClaimSetup } from './claimed-turn-setup';

let setup: ClaimSetup | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await setup?.close();
  setup = undefined;
});

/** What the waiter asked the store's turn claims, and with which options. */
interface Seen {
  appended: Array<{ entries: readonly unknown[]; options: StorageCallOptions | undefined }>;
  looks: Array<StorageCallOptions | undefined>;
  /** The signal of each `waitForChange`. */
  waits: AbortSignal[];
}

/**
 * Another gateway holds `s1`'s turn and lets it go at the waiter's `freeAt`-th look at the claim
 * (after `onLook` ran for that look); `announcing: false` leaves out the store's `waitForChange`.
 */
async function waiting(
  options: {
    freeAt?: number;
    pollMs?: number;
    announcing?: boolean;
    onLook?: (look: number) => void;
  } = {},
) {
  const seen: Seen = { appended: [], looks: [], waits: [] };
  setup = await createClaimSetup({
    ttlMs: 600_000,
    ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
    wrap(claims) {
      const { waitForChange, ...rest } = claims;
      const wrapped: SessionTurnClaims = {
        ...rest,
        async appendQueued(sessionId, entries, callOptions) {
          seen.appended.push({ entries, options: callOptions });
          return claims.appendQueued(sessionId, entries, callOptions);
        },
        async currentTurn(sessionId, callOptions) {
          seen.looks.push(callOptions);
          options.onLook?.(seen.looks.length);
          if (seen.looks.length === (options.freeAt ?? 1)) await other.release();
          return claims.currentTurn(sessionId, callOptions);
        },
      };
      if (options.announcing !== false && waitForChange !== undefined) {
        wrapped.waitForChange = (sessionId, waitOptions) => {
          if (waitOptions.signal !== undefined) seen.waits.push(waitOptions.signal);
          return waitForChange.call(claims, sessionId, waitOptions);
        };
      }
      return wrapped;
    },
  });
  const taken = await setup.claims.claimTurn('s1', {
    owner: 'other',
    turnId: 'turn-there',
    ttlMs: 600_000,
  });
  if (!taken.claimed) throw new Error('the other gateway did not get the claim');
  const other = taken.claim;
  return { setup, seen };
}

/** A user message of `s1` stored before (as `recover` finds it unanswered). */
async function storedMessage(current: ClaimSetup): Promise<MessageEntry> {
  const message = current.runtime.entries.message({
    role: 'user',
    content: [{ type: 'text', text: 'stored before' }],
    clientMessageId: 'c-stored',
  });
  await current.store.append('s1', [message]);
  return message;
}

describe('a turn waiting for another gateway’s turn', () => {
  it('writes a message the transcript holds already nowhere, and finds the turn free', async () => {
    const { setup, seen } = await waiting({ freeAt: 2 });
    const message = await storedMessage(setup);
    const claimed = await setup.claim({ type: 'existing', message });
    expect(claimed).toStrictEqual({ type: 'free', message });
    expect(seen.appended).toEqual([]);
    expect((await setup.store.read('s1')).entries).toEqual([message]);
  });

  it('passes the turn’s signal to every store call', async () => {
    const { setup, seen } = await waiting({ freeAt: 2 });
    const claimed = await setup.claim({
      type: 'new',
      content: [{ type: 'text', text: 'queued here' }],
      clientMessageId: 'c-new',
    });
    expect(claimed).toMatchObject({
      type: 'free',
      message: { messageId: 'message-here', clientMessageId: 'c-new' },
    });
    const signal = setup.turn.controller.signal;
    expect(seen.appended).toHaveLength(1);
    expect(seen.appended[0]?.options?.signal).toBe(signal);
    expect(setup.reads).toHaveLength(2);
    for (const read of setup.reads) expect(read.signal).toBe(signal);
    expect(seen.looks).toHaveLength(2);
    for (const look of seen.looks) expect(look?.signal).toBe(signal);
  });

  it('stops listening for changes after each look, leaving nothing on the turn’s signal', async () => {
    const { setup, seen } = await waiting({ freeAt: 3 });
    expect(await setup.claim()).toMatchObject({ type: 'free' });
    expect(seen.waits).toHaveLength(3);
    for (const signal of seen.waits) expect(signal.aborted).toBe(true);
    expect(getEventListeners(setup.turn.controller.signal, 'abort')).toEqual([]);
  });

  it('stops listening at once when the turn is aborted, and only once', async () => {
    let stoppedAtOnce: boolean | undefined;
    let listenersAfter: number | undefined;
    const { setup, seen } = await waiting({
      freeAt: 0,
      onLook() {
        const signal = setup.turn.controller.signal;
        // Runs after the waiter's own listener: that one (once) is gone by then.
        signal.addEventListener(
          'abort',
          () => {
            listenersAfter = getEventListeners(signal, 'abort').length;
          },
          { once: true },
        );
        setup.turn.controller.abort(new Error('stopped'));
        stoppedAtOnce = seen.waits.at(-1)?.aborted;
      },
    });
    expect(await setup.claim()).toMatchObject({ type: 'answered' });
    expect(stoppedAtOnce).toBe(true);
    expect(listenersAfter).toBe(0);
  });

  describe('with a store that announces no changes', () => {
    /** The pause timers (`pollMs`, 37 ms here) set, and how often each was cleared. */
    function pauses() {
      const set: unknown[] = [];
      const cleared = new Map<unknown, number>();
      const setTimer = globalThis.setTimeout;
      const clearTimer = globalThis.clearTimeout;
      vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
        ...args: Parameters<typeof setTimer>
      ) => {
        const timer = setTimer(...args);
        if (args[1] === 37) set.push(timer);
        return timer;
      }) as typeof setTimer);
      vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((
        timer: Parameters<typeof clearTimer>[0],
      ) => {
        cleared.set(timer, (cleared.get(timer) ?? 0) + 1);
        return clearTimer(timer);
      }) as typeof clearTimer);
      return { set, cleared };
    }

    it('the pause of a look that finds the turn free is cleared with the look', async () => {
      const timers = pauses();
      const { setup } = await waiting({ freeAt: 1, pollMs: 37, announcing: false });
      expect(await setup.claim()).toMatchObject({ type: 'free' });
      expect(timers.set).toHaveLength(1);
      expect(timers.cleared.get(timers.set[0])).toBe(1);
    });

    it('a pause that ran out is cleared once, not again when its look ends', async () => {
      const timers = pauses();
      const { setup } = await waiting({ freeAt: 2, pollMs: 37, announcing: false });
      expect(await setup.claim()).toMatchObject({ type: 'free' });
      expect(timers.set).toHaveLength(2);
      for (const timer of timers.set) expect(timers.cleared.get(timer)).toBe(1);
    });
  });
});
