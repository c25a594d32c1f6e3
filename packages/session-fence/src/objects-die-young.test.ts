// What a turn lets go of must die young. V8 allocates the accessor pair of a getter written in an
// object literal in the old generation: the getter's closure, and the whole scope it closes over,
// then survive every scavenge until the next full collection (`promotedBytes` in @keel/testing
// shows it). The fence, its lease, the lock's handle and a turn claim are made for every turn, so
// their read-only properties are getters of a shared prototype instead.
import { join } from 'node:path';
import { promotedBytes } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../test/support';
import { createSessionFence } from './session-fence';
import { createSessionLock } from './session-lock';
import { createTranscriptStore } from './transcript-store';

const temp = useTempDir();

/** The names of `value`'s own properties that are accessors. */
function ownAccessors(value: object): string[] {
  return Object.entries(Object.getOwnPropertyDescriptors(value))
    .filter(([, descriptor]) => descriptor.get !== undefined || descriptor.set !== undefined)
    .map(([name]) => name);
}

describe('objects made for every turn', () => {
  it('a fence let go is collected young, whatever its scope holds', async () => {
    const storage = createTranscriptStore({ sessionsDir: temp.path });
    const promoted = await promotedBytes((index) => {
      // About 2 KB that only the fence's scope reaches (through its options).
      const block = new Array<number>(256).fill(index);
      const fence = createSessionFence({ storage, sessionId: 's', onLeaseEvent: () => block });
      return fence.status;
    });
    expect(promoted).toBeLessThan(500);
  });

  it('a fence reads its status, takeover and state from its prototype, and they follow it', async () => {
    const storage = createTranscriptStore({ sessionsDir: temp.path });
    const fence = createSessionFence({ storage, sessionId: 's' });
    expect(ownAccessors(fence)).toEqual([]);
    expect([fence.status, fence.state, fence.takeover]).toEqual(['idle', undefined, undefined]);
    await fence.acquire();
    expect(fence.status).toBe('held');
    expect(fence.state?.exists).toBe(false);
    await fence.end();
    expect(fence.status).toBe('ended');
    await storage.close();
  });

  it('a lease, a lock handle and a turn claim have no getters of their own', async () => {
    const storage = createTranscriptStore({ sessionsDir: temp.path, keptLeaseIdleMs: 0 });
    const lease = await storage.lease('s');
    expect(ownAccessors(lease)).toEqual([]);
    expect(lease.released).toBe(false);
    await lease.release();
    expect(lease.released).toBe(true);

    const handle = await createSessionLock({ path: join(temp.path, 'other.lock') }).acquire();
    expect(ownAccessors(handle)).toEqual([]);
    expect(handle.released).toBe(false);
    await handle.release();
    expect(handle.released).toBe(true);

    const claims = storage.turnClaims;
    if (claims === undefined) throw new Error('the file store claims turns');
    const granted = await claims.claimTurn('s', { owner: 'test', turnId: 't1', ttlMs: 10_000 });
    if (!granted.claimed) throw new Error('the claim was not granted');
    expect(ownAccessors(granted.claim)).toEqual([]);
    expect(granted.claim.released).toBe(false);
    await granted.claim.release();
    expect(granted.claim.released).toBe(true);
    await storage.close();
  });
});
