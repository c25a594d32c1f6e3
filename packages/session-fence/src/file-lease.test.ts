/** Leases of the file store: fencing tokens beside the lock, heartbeat, events, refusals. */

import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { LeaseEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { recordingFileSystem, spawnNodeScript, textMessage, useTempDir } from '../test/support';
import { SessionTakeoverError } from './session-fence-error';
import { createSessionLock } from './session-lock';
import { createTranscriptStore, createTranscriptStoreWith } from './transcript-store';

const temp = useTempDir();
const sessionsDir = () => join(temp.path, 'sessions');

async function refusal(promise: Promise<unknown>): Promise<SessionTakeoverError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(SessionTakeoverError.isInstance(error), String(error)).toBe(true);
  return error as SessionTakeoverError;
}

describe('a lease of the file store', () => {
  it('keeps its token in <id>.fence, incremented under the lock, and across processes', async () => {
    const store = createTranscriptStore({ sessionsDir: sessionsDir() });
    const first = await store.lease('s');
    expect(first.token).toBe('1');
    expect(await readFile(store.fencePath('s'), 'utf8')).toBe(`${'1'.padStart(20, '0')}\n`);
    await first.release();
    const child = await spawnNodeScript(
      temp.path,
      'lease.mjs',
      `import { createTranscriptStore } from DIST;
const lease = await createTranscriptStore({ sessionsDir: process.argv[2] }).lease('s');
console.log(lease.token);
await lease.release();`,
      [sessionsDir()],
    );
    expect(await child.exited, child.stderr()).toBe(0);
    expect(child.stdout().trim()).toBe('2');
    const third = await createTranscriptStore({ sessionsDir: sessionsDir() }).lease('s');
    expect(third.token).toBe('3');
    await third.release();
  });

  it('refuses the writes of a lease whose holder froze and was taken over, though it never released (stale-token)', async () => {
    // No heartbeat runs: the holder looks frozen once its ttl has passed.
    const frozen = createTranscriptStore({
      sessionsDir: sessionsDir(),
      lock: { staleMs: 100, heartbeatMs: 3_600_000 },
    });
    const store = createTranscriptStore({ sessionsDir: sessionsDir() });
    const old = await frozen.lease('s');
    await frozen.append('s', [textMessage('1', 'mine')], { lease: old });
    const usurper = await store.lease('s', { timeoutMs: 10_000 });
    expect(old.released).toBe(false);
    const error = await refusal(frozen.append('s', [textMessage('2', 'late')], { lease: old }));
    expect(error).toMatchObject({ change: 'stale-token', phase: 'write', sessionId: 's' });
    expect(await old.isHeld()).toBe(false);
    await expect(old.renew()).rejects.toMatchObject({ change: 'stale-token' });
    await store.append('s', [textMessage('3', 'usurper')], { lease: usurper });
    await old.release();
    // Releasing the old lease left the usurper's lock alone.
    expect(await usurper.isHeld()).toBe(true);
    await usurper.release();
    expect((await store.read('s')).entries.map((entry) => entry.id)).toEqual(['1', '3']);
  });

  it('refuses the writes of a lease whose lock file was taken without a lease (lock-lost)', async () => {
    const frozen = createTranscriptStore({
      sessionsDir: sessionsDir(),
      lock: { staleMs: 100, heartbeatMs: 3_600_000 },
    });
    const lease = await frozen.lease('s');
    const other = await createSessionLock({ path: frozen.lockPath('s') }).acquire({
      timeoutMs: 10_000,
    });
    const error = await refusal(frozen.append('s', [textMessage('1', 'late')], { lease }));
    expect(error.change).toBe('lock-lost');
    expect((await frozen.read('s')).exists).toBe(false);
    await other.release();
    await lease.release();
  });

  it('stays held past its ttl while its heartbeat runs', async () => {
    const store = createTranscriptStore({ sessionsDir: sessionsDir() });
    const lease = await store.lease('s', { ttlMs: 1_500 });
    const contender = createTranscriptStore({
      sessionsDir: sessionsDir(),
      lock: { staleMs: 1_500 },
    });
    // Waits more than twice the ttl: only heartbeats every ttl / 4 keep the lease.
    const outcome = await contender.lease('s', { timeoutMs: 4_000 }).then(
      () => 'granted',
      (error: unknown) => (error as { keelKind?: string }).keelKind,
    );
    expect(outcome).toBe('coordination');
    expect(await lease.isHeld()).toBe(true);
    await lease.release();
  });

  it('tells contenders its own ttl, so a frozen holder is taken over after its ttl, not theirs', async () => {
    const frozen = createTranscriptStore({
      sessionsDir: sessionsDir(),
      lock: { heartbeatMs: 3_600_000 },
    });
    const lease = await frozen.lease('s', { ttlMs: 100 });
    expect(JSON.parse(await readFile(frozen.lockPath('s'), 'utf8')).ttlMs).toBe(100);
    // This contender would wait an hour for a holder that set no ttl.
    const contender = createTranscriptStore({
      sessionsDir: sessionsDir(),
      lock: { staleMs: 3_600_000 },
    });
    const taken = await contender.lease('s', { timeoutMs: 10_000 });
    expect(BigInt(taken.token)).toBeGreaterThan(BigInt(lease.token));
    await taken.release();
    await lease.release();
  });

  it('reports a failing heartbeat (lease-renew-failed) and a lost lease (lease-lost) through onEvent', async () => {
    let failing = false;
    const { fileSystem } = recordingFileSystem({
      async futimes(real, fd, atime, mtime) {
        if (failing) throw new Error('EIO: i/o error, futimes');
        return real(fd, atime, mtime);
      },
    });
    const store = createTranscriptStoreWith(fileSystem, {
      sessionsDir: sessionsDir(),
      lock: { heartbeatMs: 10 },
    });
    const events: LeaseEvent[] = [];
    let notify: () => void = () => {};
    const next = () =>
      new Promise<void>((resolve) => {
        notify = resolve;
      });
    let heard = next();
    const lease = await store.lease('s', {
      onEvent(event) {
        events.push(event);
        notify();
      },
    });
    failing = true;
    await heard;
    expect(events[0]).toMatchObject({ type: 'lease-renew-failed', sessionId: 's', token: '1' });
    failing = false;
    heard = next();
    // Another holder takes the lock (its file replaced): the next heartbeat sees it.
    await unlink(store.lockPath('s'));
    const other = await createSessionLock({ path: store.lockPath('s') }).acquire();
    while (events.at(-1)?.type !== 'lease-lost') {
      await heard;
      heard = next();
    }
    expect(events.at(-1)).toEqual({ type: 'lease-lost', sessionId: 's', token: '1' });
    await other.release();
    await lease.release();
  });

  it('lets an append that names only `expected` write under the lease this process holds', async () => {
    const store = createTranscriptStore({ sessionsDir: sessionsDir(), lock: { timeoutMs: 500 } });
    await store.append('s', [textMessage('1', 'a')]);
    const lease = await store.lease('s');
    const result = await store.append('s', [textMessage('2', 'b')], {
      expected: await store.state('s'),
    });
    await store.append('s', [textMessage('3', 'foreign')]);
    const error = await refusal(
      store.append('s', [textMessage('4', 'late')], { expected: result.state }),
    );
    expect(error.change).toBe('appended');
    await lease.release();
    // Without a lease in this process the append takes the lock for the check and the write.
    const after = await store.append('s', [textMessage('5', 'c')], {
      expected: await store.state('s'),
    });
    expect(await store.compare('s', after.state)).toBeUndefined();
    expect((await store.read('s')).entries.map((entry) => entry.id)).toEqual(['1', '2', '3', '5']);
  });

  it('refuses a lease of another session', async () => {
    const store = createTranscriptStore({ sessionsDir: sessionsDir() });
    const lease = await store.lease('a');
    await expect(store.append('b', [textMessage('1', 'x')], { lease })).rejects.toThrow(
      /not a lease of session b/,
    );
    await lease.release();
  });
});
