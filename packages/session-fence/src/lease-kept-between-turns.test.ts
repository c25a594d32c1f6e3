import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  recordingFileSystem,
  spawnNodeScript,
  textMessage,
  useTempDir,
  waitFor,
} from '../test/support';
import { createSessionFence } from './session-fence';
import { createSessionLock } from './session-lock';
import { createTranscriptStore, createTranscriptStoreWith } from './transcript-store';

// Between turns the store keeps a session's lease while nobody asks for its lock (README "The
// lease kept while nobody asks"). The heartbeat never runs here unless a test says so: only an
// ask (or the store) can make the holder let go.
const NEVER = 2 ** 31 - 1;
const temp = useTempDir();
const sessionsDir = () => join(temp.path, 'sessions');

async function turn(store: ReturnType<typeof createTranscriptStore>, id: string): Promise<void> {
  const fence = createSessionFence({ storage: store, sessionId: 's1' });
  await fence.acquire();
  await fence.append([textMessage(`${id}-u`, 'question')]);
  await fence.release();
  await fence.reacquire();
  await fence.append([textMessage(`${id}-a`, 'answer', 'assistant')]);
  await fence.end();
}

const counter = async (store: { fencePath(id: string): string }) =>
  BigInt((await readFile(store.fencePath('s1'), 'utf8')).trim());

describe('a store keeps a lease between turns while nobody asks', () => {
  it('the next turn takes it back: no lock linked or removed, a token one larger, written unread', async () => {
    const { fileSystem, calls } = recordingFileSystem();
    const store = createTranscriptStoreWith(fileSystem, {
      sessionsDir: sessionsDir(),
      lock: { staleMs: 60_000, heartbeatMs: NEVER },
      keptLeaseIdleMs: NEVER,
    });
    await turn(store, 't1');
    const token = await counter(store);
    const lock = await lstat(store.lockPath('s1'));
    const from = calls.length;
    await turn(store, 't2');
    const between = calls.slice(from);
    const lockCalls = between.filter((call) => call.path.includes('.lock'));
    // No look at the lock at all: the first turn's last look (its reacquire's lstat) still proves
    // it its own (`LockProof`: half the ttl past the heartbeat it saw; the ttl here is a minute).
    expect(lockCalls.map((call) => call.method)).toEqual([]);
    const counterCalls = between.filter((call) => call.path === store.fencePath('s1'));
    // The new token written, never read: nor does an owned write read it (its lock is its own).
    expect(counterCalls.map((call) => call.method)).toEqual(['write']);
    expect(await counter(store)).toBe(token + 1n);
    expect((await lstat(store.lockPath('s1'))).ino).toBe(lock.ino);
    expect((await store.read('s1')).entries.map((entry) => entry.id)).toEqual([
      't1-u',
      't1-a',
      't2-u',
      't2-a',
    ]);
    await store.close();
  });

  it('an earlier lease is refused after its lock was taken back by a newer one', async () => {
    const store = createTranscriptStore({
      sessionsDir: sessionsDir(),
      lock: { staleMs: 60_000, heartbeatMs: NEVER },
      keptLeaseIdleMs: NEVER,
    });
    const first = await store.lease('s1');
    const { state } = await store.append('s1', [textMessage('m1', 'x')], { lease: first });
    await first.release();
    const second = await store.lease('s1');
    expect(BigInt(second.token)).toBe(BigInt(first.token) + 1n);
    expect(await first.isHeld()).toBe(false);
    expect(await second.isHeld()).toBe(true);
    await expect(
      store.append('s1', [textMessage('late', 'x')], { lease: first, expected: state }),
    ).rejects.toMatchObject({ keelKind: 'session_takeover', change: 'stale-token' });
    await second.release();
    await store.close();
    expect((await store.read('s1')).entries.map((entry) => entry.id)).toEqual(['m1']);
  });

  it('a writer of another process gets the session at once (its ask is watched) and is seen by the next turn', async () => {
    const store = createTranscriptStore({
      sessionsDir: sessionsDir(),
      lock: { staleMs: 60_000, heartbeatMs: NEVER },
      keptLeaseIdleMs: NEVER,
    });
    await turn(store, 't1');
    const child = await spawnNodeScript(
      temp.path,
      'writer.mjs',
      `import { createTranscriptStore } from DIST;
       const store = createTranscriptStore({ sessionsDir: process.argv[2] });
       const lease = await store.lease('s1', { timeoutMs: 15000 });
       await store.append('s1', [{ type: 'message', id: 'other', messageId: 'other', timestamp: 'x',
         role: 'user', content: [{ type: 'text', text: 'from another process' }] }], { lease });
       await lease.release();
       console.log(lease.token);`,
      [sessionsDir()],
    );
    expect(await child.exited, child.stderr()).toBe(0);
    const childToken = BigInt(child.stdout().trim());
    await turn(store, 't2');
    expect(await counter(store)).toBeGreaterThan(childToken);
    expect((await store.read('s1')).entries.map((entry) => entry.id)).toEqual([
      't1-u',
      't1-a',
      'other',
      't2-u',
      't2-a',
    ]);
    await store.close();
  }, 30_000);

  it('another store of this process gets the session at once; the next turn here takes a new lease', async () => {
    const store = createTranscriptStore({
      sessionsDir: sessionsDir(),
      lock: { staleMs: 60_000, heartbeatMs: NEVER },
      keptLeaseIdleMs: NEVER,
    });
    const other = createTranscriptStore({ sessionsDir: sessionsDir() });
    await turn(store, 't1');
    const lease = await other.lease('s1', { timeoutMs: 15_000 });
    await other.append('s1', [textMessage('other', 'x')], { lease });
    await lease.release();
    await other.close();
    await turn(store, 't2');
    expect(await counter(store)).toBe(BigInt(lease.token) + 1n);
    await store.close();
  }, 30_000);

  it('a kept lock taken over as stale is not taken back: the next lease is a new one', async () => {
    const store = createTranscriptStore({
      sessionsDir: sessionsDir(),
      lock: { staleMs: 200, heartbeatMs: NEVER },
      keptLeaseIdleMs: NEVER,
    });
    await (await store.lease('s1')).release();
    const other = createTranscriptStore({ sessionsDir: sessionsDir(), lock: { staleMs: 200 } });
    // No heartbeat: the kept lock goes stale, and the other store takes it over (stale at its
    // first look, so it never asks).
    await waitFor(async () => Date.now() - (await lstat(store.lockPath('s1'))).mtimeMs > 400, {
      what: 'the kept lock gone stale',
    });
    const taken = await other.lease('s1', { timeoutMs: 15_000 });
    await taken.release();
    await other.close();
    const next = await store.lease('s1');
    expect(BigInt(next.token)).toBeGreaterThan(BigInt(taken.token));
    expect(await next.isHeld()).toBe(true);
    await next.release();
    await store.close();
  }, 30_000);

  it('a kept lease heartbeats while idle', async () => {
    const store = createTranscriptStore({
      sessionsDir: sessionsDir(),
      lock: { staleMs: 60_000, heartbeatMs: 20 },
      keptLeaseIdleMs: NEVER,
    });
    await (await store.lease('s1')).release();
    const before = (await lstat(store.lockPath('s1'))).mtimeMs;
    await waitFor(async () => (await lstat(store.lockPath('s1'))).mtimeMs > before, {
      what: 'a heartbeat of the kept lock',
    });
    await store.close();
  });

  it('a store that closes lets its kept leases go, and keeps none after', async () => {
    const store = createTranscriptStore({
      sessionsDir: sessionsDir(),
      lock: { staleMs: 60_000, heartbeatMs: NEVER },
      keptLeaseIdleMs: NEVER,
    });
    await (await store.lease('s1')).release();
    const other = () => createSessionLock({ path: store.lockPath('s1') });
    expect(await other().tryAcquire()).toBeUndefined();
    await store.close();
    const free = await other().tryAcquire();
    expect(free).toBeDefined();
    await free?.release();
    await (await store.lease('s1')).release();
    await expect(lstat(store.lockPath('s1'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps nothing with keptLeaseIdleMs 0', async () => {
    const store = createTranscriptStore({ sessionsDir: sessionsDir(), keptLeaseIdleMs: 0 });
    await turn(store, 't1');
    await expect(lstat(store.lockPath('s1'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a process that exits lets its kept leases go: no lock file left', async () => {
    const child = await spawnNodeScript(
      temp.path,
      'exits.mjs',
      `import { createTranscriptStore } from DIST;
       const store = createTranscriptStore({ sessionsDir: process.argv[2] });
       await (await store.lease('s1')).release();
       await (await store.lease('s2')).release();`,
      [sessionsDir()],
    );
    expect(await child.exited, child.stderr()).toBe(0);
    const left = await readdir(sessionsDir());
    expect(left.filter((name) => name.includes('.lock')).sort()).toEqual([]);
  });
});
