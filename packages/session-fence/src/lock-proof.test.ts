import { readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recordingFileSystem, textMessage, useTempDir, waitFor } from '../test/support';
import { LockProof } from './lock-proof';
import { createSessionFence } from './session-fence';
import { SessionTakeoverError } from './session-fence-error';
import { createSessionLock } from './session-lock';
import { createTranscriptStore, createTranscriptStoreWith } from './transcript-store';

const NEVER = 2 ** 31 - 1;
const temp = useTempDir();

describe('LockProof', () => {
  // Date alone is faked: a proof is a comparison with `Date.now()`, nothing waits.
  let proof: LockProof;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: 100_000 });
    proof = new LockProof(10_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds until half the ttl past the heartbeat it saw, and no longer', () => {
    expect(proof.holds()).toBe(false);
    proof.seenOwn(99_000);
    expect(proof.holds()).toBe(true);
    vi.setSystemTime(103_999);
    expect(proof.holds()).toBe(true);
    vi.setSystemTime(104_000);
    expect(proof.holds()).toBe(false);
  });

  it('counts from the look, not from a heartbeat dated in the future', () => {
    proof.seenOwn(200_000);
    vi.setSystemTime(105_000);
    expect(proof.holds()).toBe(false);
  });

  it('proves nothing once a look saw a heartbeat half a ttl old (lapsed), even a fresh one later', () => {
    proof.seenOwn(95_000);
    expect(proof.holds()).toBe(false);
    proof.seenOwn(100_000);
    expect(proof.holds()).toBe(false);
  });

  it('proves nothing after a lost look, or from an unknown heartbeat', () => {
    proof.seenOwn(100_000);
    proof.lost();
    expect(proof.holds()).toBe(false);
    const unknown = new LockProof(10_000);
    unknown.seenOwn(Number.NaN);
    expect(unknown.holds()).toBe(false);
  });
});

/** A lease of `s1` (ttl a minute) over a file system that records its calls. */
async function leasedAndRecorded(heartbeatMs: number) {
  const { fileSystem, calls } = recordingFileSystem();
  const store = createTranscriptStoreWith(fileSystem, {
    sessionsDir: join(temp.path, 'sessions'),
    lock: { staleMs: 60_000, heartbeatMs },
  });
  const lease = await store.lease('s1');
  const lockPath = store.lockPath('s1');
  const looks = () => calls.filter((call) => call.path === lockPath && call.method === 'lstat');
  return { store, lease, lockPath, calls, looks };
}

describe('a held lease proven by its last look', () => {
  it('is refused once a contender took its lock as stale: a proof lasts half the ttl', async () => {
    const frozen = createTranscriptStore({
      sessionsDir: join(temp.path, 'sessions'),
      lock: { staleMs: 300, heartbeatMs: NEVER },
    });
    const held = createSessionFence({ storage: frozen, sessionId: 's1' });
    await held.acquire();
    // This write looks at the lock (a new lease has no proof yet): it is proven from here on.
    await held.append([textMessage('m1', 'first')]);
    const usurper = await createSessionLock({
      path: frozen.lockPath('s1'),
      staleMs: 300,
    }).acquire({ timeoutMs: 10_000 });
    const before = await readFile(frozen.transcriptPath('s1'), 'utf8');
    const error = await held.append([textMessage('m2', 'late')]).catch((caught: unknown) => caught);
    expect(SessionTakeoverError.isInstance(error)).toBe(true);
    expect((error as SessionTakeoverError).change).toBe('lock-lost');
    expect(await readFile(frozen.transcriptPath('s1'), 'utf8')).toBe(before);
    await usurper.release();
    await frozen.close();
  });

  it('looks at every write once a look found its heartbeat lapsed, a refreshed one included', async () => {
    const { store, lease, lockPath, looks } = await leasedAndRecorded(NEVER);
    // The heartbeat 40 s old: more than half the ttl (a frozen holder's).
    const old = new Date(Date.now() - 40_000);
    await utimes(lockPath, old, old);
    let { state } = await store.append('s1', [textMessage('m1', 'x')], { lease });
    await lease.renew();
    ({ state } = await store.append('s1', [textMessage('m2', 'x')], { lease, expected: state }));
    const from = looks().length;
    await store.append('s1', [textMessage('m3', 'x')], { lease, expected: state });
    expect(looks().length - from).toBe(1);
    await lease.release();
    await store.close();
  });

  it('is not looked at again by a write within its proof', async () => {
    const { store, lease, looks } = await leasedAndRecorded(NEVER);
    let { state } = await store.append('s1', [textMessage('m1', 'x')], { lease });
    expect(looks()).toHaveLength(1);
    ({ state } = await store.append('s1', [textMessage('m2', 'x')], { lease, expected: state }));
    await store.append('s1', [textMessage('m3', 'x')], { lease, expected: state });
    expect(looks()).toHaveLength(1);
    // The lease's own isHeld always looks.
    expect(await lease.isHeld()).toBe(true);
    expect(looks()).toHaveLength(2);
    await lease.release();
    await store.close();
  });

  it('looks at the lock before its heartbeat refreshes it (the look sees the heartbeat before)', async () => {
    const { store, lease, lockPath, calls } = await leasedAndRecorded(20);
    const beat = await waitFor(() => {
      const index = calls.findIndex((call) => call.method === 'futimes');
      return index < 0 ? undefined : index + 1;
    });
    expect(calls[beat - 2]).toEqual({ method: 'lstat', path: lockPath });
    await lease.release();
    await store.close();
  });
});
