/**
 * The claim a gateway holds for a session's turn (`holdClaim` in src/claimed-turn.ts): heartbeated
 * every third of its ttl until released, no longer once a heartbeat failed; `renew` (the hand-over
 * to the session's next turn here) says it holds without asking the store while the last claim or
 * heartbeat sent is younger than half the ttl, asks the store (a heartbeat) from then on, and says
 * it does not hold once a heartbeat failed or the claim was released. The interval timer and
 * `performance.now` are faked; the store's heartbeats answer as each test scripts them.
 */
import type { TurnClaim } from '@keel/spec';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HeldClaim } from '../src/claimed-turn';
import { type ClaimSetup, createClaimSetup } from './claimed-turn-setup';

const TTL_MS = 300;

/** How each heartbeat the store is asked for answers, in order; `ok` once the script ran out. */
type Answer = 'ok' | 'fail' | 'hang';

let setup: ClaimSetup | undefined;
afterEach(async () => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  await setup?.close();
  setup = undefined;
});

/** The heartbeats the store was asked for: how many, and the last one's answer. */
interface Asked {
  beats: number;
  last?: Promise<void>;
}

/** A store claim whose heartbeats answer as `script` says; `asked` counts them. */
function scripted(claim: TurnClaim, script: Answer[], asked: Asked): TurnClaim {
  return {
    sessionId: claim.sessionId,
    owner: claim.owner,
    turnId: claim.turnId,
    token: claim.token,
    get released() {
      return claim.released;
    },
    isHeld: (options) => claim.isHeld(options),
    heartbeat() {
      asked.beats += 1;
      const answer = script.shift() ?? 'ok';
      asked.last =
        answer === 'ok'
          ? Promise.resolve()
          : answer === 'fail'
            ? Promise.reject(new Error('session_takeover: lock-lost'))
            : new Promise<never>(() => undefined);
      return asked.last;
    },
    release: () => claim.release(),
  };
}

/**
 * Claims `s1` at `performance.now()` 1000 (timers faked) with heartbeats answering as `script`.
 * `stored` is the store's own claim behind the held one.
 */
async function hold(script: Answer[] = []) {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
  vi.advanceTimersByTime(1000);
  const asked: Asked = { beats: 0 };
  let stored: TurnClaim | undefined;
  setup = await createClaimSetup({
    ttlMs: TTL_MS,
    wrap: (claims) => ({
      ...claims,
      async claimTurn(...args) {
        const result = await claims.claimTurn(...args);
        if (!result.claimed) return result;
        stored = result.claim;
        return { claimed: true, claim: scripted(result.claim, script, asked) };
      },
    }),
  });
  const claimed = await setup.claim();
  if (claimed.type !== 'here' || stored === undefined) throw new Error(`not held: ${claimed.type}`);
  expect(performance.now()).toBe(1000);
  return { held: claimed.claim as HeldClaim, stored, asked };
}

describe('a claim held here', () => {
  it('is heartbeated every third of its ttl until released', async () => {
    const { held, asked } = await hold();
    vi.advanceTimersByTime(TTL_MS / 3 - 1);
    expect(asked.beats).toBe(0);
    vi.advanceTimersByTime(1);
    expect(asked.beats).toBe(1);
    vi.advanceTimersByTime(TTL_MS / 3);
    expect(asked.beats).toBe(2);
    await held.release();
    vi.advanceTimersByTime(TTL_MS * 3);
    expect(asked.beats).toBe(2);
    expect(await setup?.claims.currentTurn('s1')).toBeUndefined();
  });

  it('renews without a heartbeat while the last one sent is younger than half the ttl', async () => {
    // The interval's heartbeat (at a third of the ttl) gets no answer: the claim is confirmed
    // only as of the claim itself.
    const { held, asked } = await hold(['hang']);
    vi.advanceTimersByTime(TTL_MS / 2 - 1);
    expect(asked.beats).toBe(1);
    expect(await held.renew()).toBe(true);
    expect(asked.beats).toBe(1);
    // Half the ttl since the claim: renew asks the store, and holds as it answers.
    vi.advanceTimersByTime(1);
    expect(await held.renew()).toBe(true);
    expect(asked.beats).toBe(2);
    // That heartbeat confirmed the claim as of when it was sent: no heartbeat for a while again.
    vi.advanceTimersByTime(1);
    expect(await held.renew()).toBe(true);
    expect(asked.beats).toBe(2);
  });

  it('does not renew when the heartbeat renew asks for fails', async () => {
    const { held, asked } = await hold(['hang', 'fail']);
    vi.advanceTimersByTime(TTL_MS / 2);
    expect(asked.beats).toBe(1);
    expect(await held.renew()).toBe(false);
    expect(asked.beats).toBe(2);
  });

  it('after a failed heartbeat: no more heartbeats, and renew says it no longer holds', async () => {
    const { held, asked } = await hold(['fail']);
    vi.advanceTimersByTime(TTL_MS / 3);
    expect(asked.beats).toBe(1);
    // The interval's heartbeat failed a moment ago (its handler ran first): young, but lost.
    await asked.last?.catch(() => undefined);
    expect(await held.renew()).toBe(false);
    vi.advanceTimersByTime(TTL_MS * 3);
    expect(asked.beats).toBe(1);
  });

  it('does not renew once the store’s claim was released', async () => {
    const { held, stored, asked } = await hold();
    await stored.release();
    expect(await held.renew()).toBe(false);
    expect(asked.beats).toBe(0);
  });

  it('is held where timers are plain numbers (no `unref`)', async () => {
    const realSetInterval = globalThis.setInterval;
    let handle: ReturnType<typeof setInterval> | undefined;
    // Only the claim's heartbeat interval (a third of its ttl) is a number: the store's own
    // timers stay Node's.
    vi.stubGlobal('setInterval', (...args: Parameters<typeof setInterval>) => {
      const timer = realSetInterval(...args);
      if (args[1] !== 200_000) return timer;
      handle = timer;
      return Number(timer);
    });
    setup = await createClaimSetup({ ttlMs: 600_000 });
    const claimed = await setup.claim();
    expect(claimed).toMatchObject({ type: 'here' });
    expect(handle).toBeDefined();
    if (claimed.type === 'here') await claimed.claim.release();
    clearInterval(handle);
  });
});
