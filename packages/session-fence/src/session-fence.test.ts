import {
  appendFile,
  chmod,
  copyFile,
  readFile,
  rename,
  symlink,
  truncate,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionStorage } from '@keel/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnNodeScript, textMessage, useTempDir } from '../test/support';
import { createSessionFence, type SessionFence } from './session-fence';
import {
  SessionLockTimeoutError,
  SessionTakeoverError,
  UnsafeTranscriptPathError,
} from './session-fence-error';
import { createSessionLock } from './session-lock';
import { createTranscriptStore, type TranscriptStore } from './transcript-store';

const temp = useTempDir();
let store: TranscriptStore;
let fence: SessionFence;
let path: string;
beforeEach(async () => {
  store = createTranscriptStore({
    sessionsDir: join(temp.path, 'sessions'),
    lock: { staleMs: 5000 },
  });
  await store.append('s1', [textMessage('m0', 'first')]);
  path = store.transcriptPath('s1');
  fence = createSessionFence({ storage: store, sessionId: 's1' });
});
afterEach(async () => {
  await fence.end().catch(() => {});
});

async function expectTakeover(
  promise: Promise<unknown>,
  phase: string,
  change: string,
): Promise<SessionTakeoverError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(SessionTakeoverError.isInstance(error), String(error)).toBe(true);
  expect(error).toMatchObject({ keelKind: 'session_takeover', phase, change, sessionId: 's1' });
  return error as SessionTakeoverError;
}

/** The lock is free again: another holder gets it at once. */
async function expectLockFree(): Promise<void> {
  const handle = await createSessionLock({ path: store.lockPath('s1') }).tryAcquire();
  expect(handle).toBeDefined();
  await handle?.release();
}

const foreignAppend = `
import { appendFileSync } from 'node:fs';
appendFileSync(process.argv[2], JSON.stringify({ type: 'message', id: 'foreign', messageId: 'foreign', timestamp: 't', role: 'user', content: [] }) + '\\n');
`;

describe('a released fence', () => {
  it('detects an append by another process at reacquire, sticky for the turn', async () => {
    await fence.acquire();
    await fence.release();
    const child = await spawnNodeScript(temp.path, 'append.mjs', foreignAppend, [path]);
    expect(await child.exited).toBe(0);
    const takeover = await expectTakeover(fence.reacquire(), 'prompt_reacquire', 'appended');
    expect(fence.takeover).toBe(takeover);
    await expect(fence.append([textMessage('late', 'x')])).rejects.toBe(takeover);
    await expect(fence.check()).rejects.toBe(takeover);
    await expect(fence.reacquire()).rejects.toBe(takeover);
    await expect(fence.release()).rejects.toBe(takeover);
    await expectLockFree();
    await fence.end();
    expect((await store.read('s1')).entries.map((entry) => entry.id)).toEqual(['m0', 'foreign']);
  });

  it('detects a truncation', async () => {
    await fence.acquire();
    await fence.release();
    await truncate(path, 5);
    await expectTakeover(fence.reacquire(), 'prompt_reacquire', 'truncated');
  });

  it('detects a file renamed over the transcript, even with identical bytes', async () => {
    await fence.acquire();
    await fence.release();
    await copyFile(path, `${path}.new`);
    await rename(`${path}.new`, path);
    await expectTakeover(fence.reacquire(), 'prompt_reacquire', 'replaced');
  });

  it('detects a same-size rewrite of the tail', async () => {
    await fence.acquire();
    await fence.release();
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('first', 'FIRST'));
    await expectTakeover(fence.reacquire(), 'prompt_reacquire', 'rewritten');
  });

  // 10 000 characters: longer than both digest windows, read whole; 20 000: read in two ranges.
  it.each([
    { size: 10_000, over: 4096 * 2, read: 'whole' },
    { size: 20_000, over: 16 * 1024, read: 'in two ranges' },
  ])(
    'detects a same-size rewrite at the start of a transcript read $read',
    async ({ size, over }) => {
      await store.append('s1', [textMessage('m1', 'y'.repeat(size))]);
      await fence.acquire();
      await fence.release();
      const text = await readFile(path, 'utf8');
      expect(text.length).toBeGreaterThan(over);
      await writeFile(path, text.replace('"first"', '"FIRST"'), { flag: 'r+' });
      expect(await readFile(path, 'utf8')).toHaveLength(text.length);
      await expectTakeover(fence.reacquire(), 'prompt_reacquire', 'rewritten');
    },
  );

  it('detects a removed transcript', async () => {
    await fence.acquire();
    await fence.release();
    await rename(path, `${path}.moved`);
    await expectTakeover(fence.reacquire(), 'prompt_reacquire', 'missing');
  });

  it('accepts owned appends made through it while released', async () => {
    await fence.acquire();
    await fence.release();
    await fence.append([textMessage('steer-1', 'also this')]);
    await fence.append([textMessage('steer-2', 'and this')]);
    expect(fence.status).toBe('released');
    // Released, the fence keeps its lease until someone asks (lease-kept-while-released.test.ts).
    const waiter = await createSessionLock({ path: store.lockPath('s1') }).acquire();
    await waiter.release();
    await fence.reacquire();
    await fence.append([textMessage('reply', 'done')]);
    await fence.end();
    expect(fence.takeover).toBeUndefined();
    expect((await store.read('s1')).entries.map((entry) => entry.id)).toEqual([
      'm0',
      'steer-1',
      'steer-2',
      'reply',
    ]);
  });

  it('is not taken over by touch or chmod', async () => {
    await fence.acquire();
    await fence.release();
    const later = new Date(Date.now() + 60_000);
    await utimes(path, later, later);
    await chmod(path, 0o644);
    await chmod(path, 0o600);
    await fence.reacquire();
    await fence.check();
    await fence.end();
    expect(fence.takeover).toBeUndefined();
  });

  it('refuses an owned append after a foreign one (phase write) and writes nothing', async () => {
    await fence.acquire();
    await fence.release();
    await appendFile(path, `${JSON.stringify(textMessage('foreign', 'x'))}\n`);
    const before = await readFile(path, 'utf8');
    await expectTakeover(fence.append([textMessage('mine', 'y')]), 'write', 'appended');
    expect(await readFile(path, 'utf8')).toBe(before);
  });

  it('sees a turn of another process that took the lock meanwhile', async () => {
    await fence.acquire();
    await fence.release();
    const otherTurn = `
import { createSessionFence, createTranscriptStore } from DIST;
const store = createTranscriptStore({ sessionsDir: process.argv[2] });
const fence = createSessionFence({ storage: store, sessionId: 's1' });
await fence.acquire();
await fence.append([{ type: 'message', id: 'other-turn', timestamp: 't', role: 'assistant', content: [] }]);
await fence.end();
`;
    const child = await spawnNodeScript(temp.path, 'other-turn.mjs', otherTurn, [
      join(temp.path, 'sessions'),
    ]);
    expect(await child.exited, child.stderr()).toBe(0);
    await expectTakeover(fence.reacquire(), 'prompt_reacquire', 'appended');
  });

  it('raises a coordination error when the lock stays busy at reacquire', async () => {
    const quick = createSessionFence({ storage: store, sessionId: 's1', lockTimeoutMs: 100 });
    await quick.acquire();
    await quick.release();
    const other = await createSessionLock({ path: store.lockPath('s1') }).acquire();
    const error = await quick.reacquire().catch((caught: unknown) => caught);
    expect(SessionLockTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ keelKind: 'coordination' });
    await other.release();
    await quick.reacquire();
    await quick.end();
  });

  it('wakes on abort while waiting for the lock', async () => {
    await fence.acquire();
    await fence.release();
    const other = await createSessionLock({ path: store.lockPath('s1') }).acquire();
    const controller = new AbortController();
    const waiting = fence.reacquire({ signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    await other.release();
  });
});

describe('a held fence', () => {
  it('notices a writer that ignored the lock (phase fence_check)', async () => {
    await fence.acquire();
    await appendFile(path, `${JSON.stringify(textMessage('rogue', 'x'))}\n`);
    await expectTakeover(fence.check(), 'fence_check', 'appended');
    await expectLockFree();
  });

  it('notices a writer that ignored the lock when releasing (phase fence_check)', async () => {
    await fence.acquire();
    await appendFile(path, `${JSON.stringify(textMessage('rogue', 'x'))}\n`);
    await expectTakeover(fence.release(), 'fence_check', 'appended');
    await expectLockFree();
  });

  it('does not absorb a write that lands between the release check and the unlock', async () => {
    let rogueWrites = 0;
    const racing: SessionStorage = {
      ...store,
      async compare(sessionId, expected, options) {
        const change = await store.compare(sessionId, expected, options);
        if (rogueWrites === 0) {
          rogueWrites += 1;
          await appendFile(path, `${JSON.stringify(textMessage('rogue', 'x'))}\n`);
        }
        return change;
      },
    };
    const raced = createSessionFence({ storage: racing, sessionId: 's1' });
    await raced.acquire();
    await raced.release();
    expect(rogueWrites).toBe(1);
    await expectTakeover(raced.reacquire(), 'prompt_reacquire', 'appended');
  });

  it('notices that its lock was taken over as stale while held (lock-lost) and writes nothing', async () => {
    const frozen = createTranscriptStore({
      sessionsDir: join(temp.path, 'sessions'),
      lock: { staleMs: 200, heartbeatMs: 600_000 },
    });
    const held = createSessionFence({ storage: frozen, sessionId: 's1' });
    await held.acquire();
    const usurper = await createSessionLock({ path: frozen.lockPath('s1'), staleMs: 200 }).acquire({
      timeoutMs: 10_000,
    });
    const before = await readFile(path, 'utf8');
    await expectTakeover(held.append([textMessage('late', 'x')]), 'write', 'lock-lost');
    expect(await readFile(path, 'utf8')).toBe(before);
    expect(await usurper.isHeld()).toBe(true);
    await usurper.release();
  });

  it('notices a change at turn end (phase cleanup) and still lets the lock go', async () => {
    await fence.acquire();
    await fence.append([textMessage('reply', 'r')]);
    await truncate(path, 3);
    await expectTakeover(fence.end(), 'cleanup', 'truncated');
    expect(fence.status).toBe('ended');
    await expectLockFree();
  });

  it('notices at turn end that its lock was taken over as stale (phase cleanup, lock-lost)', async () => {
    const frozen = createTranscriptStore({
      sessionsDir: join(temp.path, 'sessions'),
      lock: { staleMs: 200, heartbeatMs: 600_000 },
    });
    const held = createSessionFence({ storage: frozen, sessionId: 's1' });
    await held.acquire();
    const usurper = await createSessionLock({ path: frozen.lockPath('s1'), staleMs: 200 }).acquire({
      timeoutMs: 10_000,
    });
    await expectTakeover(held.end(), 'cleanup', 'lock-lost');
    expect(await usurper.isHeld()).toBe(true);
    await usurper.release();
  });

  it('ends cleanly after its last owned write although the lock was taken over since (the write checked the lease)', async () => {
    const frozen = createTranscriptStore({
      sessionsDir: join(temp.path, 'sessions'),
      lock: { staleMs: 200, heartbeatMs: 600_000 },
    });
    const held = createSessionFence({ storage: frozen, sessionId: 's1' });
    await held.acquire();
    await held.append([textMessage('reply', 'r')]);
    const usurper = await createSessionLock({ path: frozen.lockPath('s1'), staleMs: 200 }).acquire({
      timeoutMs: 10_000,
    });
    await held.end();
    expect(held.takeover).toBeUndefined();
    expect(await usurper.isHeld()).toBe(true);
    await usurper.release();
  });

  it('starts a session that has no transcript yet', async () => {
    const fresh = createSessionFence({ storage: store, sessionId: 'new-session' });
    await fresh.acquire();
    await fresh.release();
    await fresh.append([textMessage('q', 'queued')]);
    await fresh.reacquire();
    await fresh.end();
    expect((await store.read('new-session')).entries.map((entry) => entry.id)).toEqual(['q']);
  });

  it('works on a sessions directory that does not exist yet', async () => {
    const fresh = createTranscriptStore({ sessionsDir: join(temp.path, 'not', 'yet') });
    const first = createSessionFence({ storage: fresh, sessionId: 'a' });
    await first.acquire();
    await first.append([textMessage('1', 'x')]);
    await first.end();
    expect((await fresh.read('a')).entries).toHaveLength(1);
  });

  it('refuses a symlinked transcript at acquire and lets the lock go', async () => {
    const target = join(temp.path, 'elsewhere.jsonl');
    await writeFile(target, '');
    await symlink(target, store.transcriptPath('linked'));
    const linked = createSessionFence({ storage: store, sessionId: 'linked' });
    await expect(linked.acquire()).rejects.toSatisfy(UnsafeTranscriptPathError.isInstance);
    const handle = await createSessionLock({ path: store.lockPath('linked') }).tryAcquire();
    expect(handle).toBeDefined();
    await handle?.release();
    expect(await readFile(target, 'utf8')).toBe('');
  });

  it('rejects calls out of order', async () => {
    await expect(fence.release()).rejects.toThrow(/idle/);
    await fence.acquire();
    await expect(fence.acquire()).rejects.toThrow(/held/);
  });
});
