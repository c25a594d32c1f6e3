import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir, waitFor } from '../test/support';
import { nodeFileSystem } from './file-system';
import { createKeptLeases, type KeptLease } from './kept-leases';
import { createSessionLock, createSessionLockWith, type InternalSessionLock } from './session-lock';

const NEVER = 2 ** 31 - 1;
const temp = useTempDir();

/** A held lock on `name`, as a released lease leaves it for the store to keep. */
async function heldLease(
  name: string,
): Promise<KeptLease & { givenBack: () => boolean; lock: InternalSessionLock }> {
  const lockPath = join(temp.path, `${name}.lock`);
  const lock = createSessionLockWith(nodeFileSystem, { path: lockPath, heartbeatMs: NEVER });
  const { handle, recorded } = await lock.take();
  await recorded;
  let givenBack = false;
  return {
    lock,
    lockPath,
    handle,
    counter: {
      fd: -1,
      giveBack: async () => {
        givenBack = true;
      },
    },
    token: 1n,
    ttlMs: undefined,
    events: { sessionId: name, token: '1', onEvent: undefined },
    givenBack: () => givenBack,
  };
}

/** Whether a lock object of its own gets the lock at once (nobody holds or keeps it). */
async function free(lockPath: string): Promise<boolean> {
  const handle = await createSessionLock({ path: lockPath }).tryAcquire();
  await handle?.release();
  return handle !== undefined;
}

describe('kept leases', () => {
  it('keeps at most `max`: keeping one more lets the least recently kept go', async () => {
    const kept = createKeptLeases({ max: 2, idleMs: NEVER });
    const [a, b, c] = await Promise.all([heldLease('a'), heldLease('b'), heldLease('c')]);
    expect([a, b, c].map((lease) => kept.keep(lease))).toEqual([true, true, true]);
    await waitFor(() => a.givenBack(), { what: 'the oldest let go' });
    expect(kept.size).toBe(2);
    expect(await free(a.lockPath)).toBe(true);
    expect(await free(b.lockPath)).toBe(false);
    expect(kept.take(b.lockPath)?.handle).toBe(b.handle);
    expect(kept.take(b.lockPath)).toBeUndefined();
    await b.handle.release();
    await kept.close();
    expect(await free(c.lockPath)).toBe(true);
  });

  it('lets a lease go once it was kept `idleMs` unused', async () => {
    const kept = createKeptLeases({ idleMs: 50 });
    const lease = await heldLease('idle');
    expect(kept.keep(lease)).toBe(true);
    expect(await free(lease.lockPath)).toBe(false);
    await waitFor(() => lease.givenBack(), { what: 'the idle lease let go' });
    expect(kept.size).toBe(0);
    expect(await free(lease.lockPath)).toBe(true);
  });

  it('keeps nothing asked for, released, or once closed', async () => {
    const kept = createKeptLeases({ idleMs: NEVER });
    const asked = await heldLease('asked');
    // A waiter of the same lock object asks in memory, then gives up.
    await expect(asked.lock.acquire({ timeoutMs: 30 })).rejects.toThrow();
    expect(asked.handle.wanted).toBe(true);
    expect(kept.keep(asked)).toBe(false);
    await asked.handle.release();
    const released = await heldLease('released');
    await released.handle.release();
    expect(kept.keep(released)).toBe(false);
    await kept.close();
    const late = await heldLease('late');
    expect(kept.keep(late)).toBe(false);
    await late.handle.release();
  });
});
