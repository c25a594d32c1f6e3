// The fence takes its leases with the options it was given: the lock wait, the lease's ttl and the
// lease-event listener reach `storage.lease` on every take, with each call's own signal.
import { join } from 'node:path';
import type { LeaseEvent, SessionStorage } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../test/support';
import { createSessionFence } from './session-fence';
import { createTranscriptStore } from './transcript-store';

const temp = useTempDir();

describe('createSessionFence: lease options', () => {
  it('passes lockTimeoutMs, leaseTtlMs and onLeaseEvent to every lease it takes, and the signal', async () => {
    const store = createTranscriptStore({ sessionsDir: join(temp.path, 'sessions') });
    const asked: Array<Record<string, unknown>> = [];
    const storage: SessionStorage = Object.assign(Object.create(store) as SessionStorage, {
      lease: (sessionId: string, options: Parameters<SessionStorage['lease']>[1] = {}) => {
        asked.push({ ...options });
        return store.lease(sessionId, options);
      },
    });
    const onLeaseEvent = (_event: LeaseEvent) => {};
    const fence = createSessionFence({
      storage,
      sessionId: 's1',
      lockTimeoutMs: 1234,
      leaseTtlMs: 5678,
      onLeaseEvent,
    });
    const signal = new AbortController().signal;
    await fence.acquire({ signal });
    await fence.end();
    expect(asked.length).toBeGreaterThan(0);
    expect(asked[0]).toEqual({ signal, timeoutMs: 1234, ttlMs: 5678, onEvent: onLeaseEvent });
  });
});
