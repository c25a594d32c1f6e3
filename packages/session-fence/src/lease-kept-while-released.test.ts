import { appendFile, lstat, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  recordingFileSystem,
  spawnNodeScript,
  textMessage,
  useTempDir,
  waitFor,
} from '../test/support';
import { createSessionFence, type SessionFence } from './session-fence';
import { createSessionLock } from './session-lock';
import {
  createTranscriptStore,
  createTranscriptStoreWith,
  type TranscriptStore,
} from './transcript-store';

// A released fence keeps its lease while nobody asks for the lock (README "The lease kept across
// the model call"). The heartbeat never runs here: only the ask itself can make the holder let go.
const NEVER = 2 ** 31 - 1;
const temp = useTempDir();
let store: TranscriptStore;
let fence: SessionFence;
beforeEach(async () => {
  store = createTranscriptStore({
    sessionsDir: join(temp.path, 'sessions'),
    lock: { staleMs: 60_000, heartbeatMs: NEVER },
    keptLeaseIdleMs: NEVER,
  });
  await store.append('s1', [textMessage('m0', 'first')]);
  fence = createSessionFence({ storage: store, sessionId: 's1' });
});
afterEach(async () => {
  await fence.end().catch(() => {});
});

/** The session's fencing-token counter: it moves once per lease taken. */
const counter = async () => BigInt((await readFile(store.fencePath('s1'), 'utf8')).trim());
/** A lock object of its own on the session's lock, as another process has. */
const otherLock = () => createSessionLock({ path: store.lockPath('s1'), timeoutMs: 20_000 });

describe('a released fence keeps its lease while nobody asks', () => {
  it('keeps the lock through release and reacquire: no new lease, the transcript still checked', async () => {
    await fence.acquire();
    await fence.append([textMessage('u1', 'question')]);
    const token = await counter();
    await fence.release();
    expect(fence.status).toBe('released');
    expect(await otherLock().tryAcquire()).toBeUndefined();
    await fence.reacquire();
    expect(await counter()).toBe(token);
    await fence.append([textMessage('a1', 'answer', 'assistant')]);
    await fence.end();
    expect(await counter()).toBe(token);
    // Ended, the lease is kept by the store for the session's next turn (lease-kept-between-turns
    // test) until someone asks; a store that closes lets it go.
    expect(await otherLock().tryAcquire()).toBeUndefined();
    await store.close();
    const free = await otherLock().tryAcquire();
    expect(free).toBeDefined();
    await free?.release();
  });

  it('a writer that ignores the lock is noticed at reacquire as before, the lease kept', async () => {
    await fence.acquire();
    await fence.release();
    const token = await counter();
    await appendFile(store.transcriptPath('s1'), `${JSON.stringify(textMessage('rogue', 'x'))}\n`);
    await expect(fence.reacquire()).rejects.toMatchObject({
      phase: 'prompt_reacquire',
      change: 'appended',
    });
    expect(await counter()).toBe(token);
  });

  it('lets go at once when a lock of another process asks; that waiter writing is a takeover as before', async () => {
    await fence.acquire();
    await fence.release();
    const token = await counter();
    const child = await spawnNodeScript(
      temp.path,
      'waiter.mjs',
      `import { createSessionLock } from DIST;
       import { appendFileSync } from 'node:fs';
       const [lockPath, transcript] = process.argv.slice(2);
       const handle = await createSessionLock({ path: lockPath, timeoutMs: 20000 }).acquire();
       appendFileSync(transcript, JSON.stringify({ type: 'turn', id: 'other', timestamp: 'x', turnId: 'b', phase: 'start' }) + '\\n');
       await handle.release();`,
      [store.lockPath('s1'), store.transcriptPath('s1')],
    );
    expect(await child.exited, child.stderr()).toBe(0);
    expect(fence.status).toBe('released');
    await expect(fence.reacquire()).rejects.toMatchObject({
      phase: 'prompt_reacquire',
      change: 'appended',
    });
    // The kept lease was let go for the waiter: the fence took a new one to look.
    expect(await counter()).toBe(token + 1n);
  });

  it('lets go at once for a lease of the same store, and takes a new lease at reacquire', async () => {
    await fence.acquire();
    await fence.release();
    const token = await counter();
    const other = await store.lease('s1', { timeoutMs: 20_000 });
    expect(BigInt(other.token)).toBe(token + 1n);
    await other.release();
    await fence.reacquire();
    expect(await counter()).toBe(token + 2n);
    await fence.append([textMessage('a1', 'answer', 'assistant')]);
    await fence.end();
    expect(fence.takeover).toBeUndefined();
  });

  it('a queued message of another gateway is adopted as before', async () => {
    await fence.acquire();
    await fence.release();
    const gateway = createTranscriptStore({ sessionsDir: join(temp.path, 'sessions') });
    await gateway.turnClaims?.appendQueued('s1', [textMessage('q1', 'queued')]);
    await fence.reacquire();
    expect(fence.takeAdopted().map((message) => message.id)).toEqual(['q1']);
    await fence.append([textMessage('a1', 'answer', 'assistant')]);
    await fence.end();
    expect((await store.read('s1')).entries.map((entry) => entry.id)).toEqual(['m0', 'q1', 'a1']);
  });

  it('does not let go while held (a tool runs): the waiter gets the lock at the release', async () => {
    await fence.acquire();
    await fence.append([textMessage('call', 'a tool call', 'assistant')]);
    const waiter = otherLock().acquire();
    let granted = false;
    void waiter.then(() => {
      granted = true;
    });
    // The ask is there (a third name of the lock file) ...
    await waitFor(async () => (await lstat(store.lockPath('s1'))).nlink === 3, {
      what: 'the ask',
    });
    // ... and a check of the lock (a heartbeat, an owned write) has seen it: still held.
    await fence.check();
    await fence.append([textMessage('result', 'the tool result')]);
    expect(granted).toBe(false);
    await fence.release();
    const handle = await waiter;
    // Answered: the ask is gone with the hold it was made to.
    await expect(lstat(`${store.lockPath('s1')}.wanted`)).rejects.toMatchObject({
      code: 'ENOENT',
    });
    await handle.release();
    await fence.reacquire();
    await fence.end();
    expect((await store.read('s1')).entries.map((entry) => entry.id)).toEqual([
      'm0',
      'call',
      'result',
    ]);
  });

  it('a kept lease whose lock was lost meanwhile is replaced at reacquire, as after a release', async () => {
    const { fileSystem, calls } = recordingFileSystem();
    store = createTranscriptStoreWith(fileSystem, {
      sessionsDir: join(temp.path, 'sessions'),
      lock: { staleMs: 60_000, heartbeatMs: NEVER },
      keptLeaseIdleMs: NEVER,
    });
    fence = createSessionFence({ storage: store, sessionId: 's1' });
    await fence.acquire();
    await fence.release();
    const token = await counter();
    const lockPath = store.lockPath('s1');
    const looked = () => calls.filter((call) => call.path === lockPath).length;
    const before = looked();
    await unlink(lockPath);
    // The kept lock's watch sees its link count change and looks (README "A lock proven by its
    // last look": until that look, the last one still proves the lock its own).
    await waitFor(() => looked() > before, { what: 'the watch to look at the removed lock' });
    await fence.reacquire();
    expect(await counter()).toBe(token + 1n);
    await fence.append([textMessage('a1', 'answer', 'assistant')]);
    await fence.end();
    expect(fence.takeover).toBeUndefined();
  });
});
