/**
 * `flush: 'deferred'` (DESIGN.md "Durable before acknowledged"): an append returns once its
 * entries are written, with the fsync still running; `durable` settles with it. The fence can be
 * released meanwhile, and every later write (the fence's, the store's) waits for that fsync and,
 * when it failed, is refused with its storage error. The fsync is held or failed at the store's
 * file-system port, on the real file system.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordingFileSystem, textMessage, useTempDir } from '../test/support';
import { createSessionFence } from './session-fence';
import { StorageError } from './session-fence-error';
import { createTranscriptStoreWith } from './transcript-store';

const temp = useTempDir();

/**
 * The real file system, whose fsyncs, once `armed`, wait for `releaseAll` (or fail with EIO).
 * `created` makes the session's transcript (and the directory) before arming.
 */
function heldFsync() {
  const waiting: Array<{ go: () => void; fail: (error: Error) => void }> = [];
  const armed = { on: false };
  const { fileSystem, calls } = recordingFileSystem({
    fsync: (real, fd) =>
      !armed.on
        ? real(fd)
        : new Promise<void>((resolve, reject) => {
            waiting.push({
              go: () => real(fd).then(resolve, reject),
              fail: (error) => reject(error),
            });
          }),
  });
  const store = createTranscriptStoreWith(fileSystem, {
    sessionsDir: join(temp.path, 'sessions'),
  });
  return {
    store,
    calls,
    waiting,
    async created(sessionId = 's') {
      await store.append(sessionId, [textMessage('m0', 'hello')]);
      armed.on = true;
    },
    /** Lets every fsync asked so far run. */
    releaseAll() {
      for (const entry of waiting.splice(0)) entry.go();
    },
    failAll() {
      const error = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      for (const entry of waiting.splice(0)) entry.fail(error);
    },
  };
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on('unhandledRejection', onUnhandled);
afterEach(() => {
  expect(unhandled).toEqual([]);
  unhandled.length = 0;
});

async function settledState(promise: Promise<unknown>): Promise<string> {
  const marker = Symbol('pending');
  const winner = await Promise.race([
    promise.then(
      () => 'resolved',
      () => 'rejected',
    ),
    new Promise((resolve) => setImmediate(() => resolve(marker))),
  ]);
  return winner === marker ? 'pending' : String(winner);
}

describe('a deferred append', () => {
  it('returns once written: readers see the entries while the fsync still runs; durable settles with it', async () => {
    const disk = heldFsync();
    // The transcript exists first (its creation fsyncs the directory too).
    await disk.created();

    const result = await disk.store.append('s', [textMessage('m1', 'deferred')], {
      flush: 'deferred',
    });
    expect(result.durable).toBeInstanceOf(Promise);
    expect(disk.waiting).toHaveLength(1);
    expect(await settledState(result.durable as Promise<void>)).toBe('pending');
    const text = await readFile(disk.store.transcriptPath('s'), 'utf8');
    expect(text).toContain('"deferred"');
    expect((await disk.store.read('s')).entries.map((entry) => entry.id)).toEqual(['m0', 'm1']);
    disk.releaseAll();
    await expect(result.durable).resolves.toBeUndefined();
  });

  it('an append without `flush` is still durable before it returns (no `durable` promise)', async () => {
    const disk = heldFsync();
    await disk.created();
    const append = disk.store.append('s', [textMessage('m1', 'plain')]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(disk.waiting).toHaveLength(1);
    expect(await settledState(append)).toBe('pending');
    disk.releaseAll();
    const result = await append;
    expect(result.durable).toBeUndefined();
  });

  it("the store's next append to the transcript writes only after the deferred fsync is done", async () => {
    const disk = heldFsync();
    await disk.created();
    const deferred = await disk.store.append('s', [textMessage('m1', 'one')], {
      flush: 'deferred',
    });
    const next = disk.store.append('s', [textMessage('m2', 'two')], { flush: 'deferred' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const text = await readFile(disk.store.transcriptPath('s'), 'utf8');
    expect(text).not.toContain('"two"');
    disk.releaseAll();
    await deferred.durable;
    const second = await next;
    disk.releaseAll();
    await second.durable;
    expect(await readFile(disk.store.transcriptPath('s'), 'utf8')).toContain('"two"');
  });

  it('a failed deferred fsync rejects `durable` with a storage error (EIO), and nothing goes unhandled', async () => {
    const disk = heldFsync();
    await disk.created();
    const result = await disk.store.append('s', [textMessage('m1', 'lost')], {
      flush: 'deferred',
    });
    disk.failAll();
    const error = await (result.durable as Promise<void>).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(StorageError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ keelKind: 'storage', operation: 'append', code: 'EIO' });
  });
});

describe('a fence over a deferred append', () => {
  async function heldFence() {
    const disk = heldFsync();
    await disk.created();
    const fence = createSessionFence({ storage: disk.store, sessionId: 's' });
    await fence.acquire();
    return { disk, fence };
  }

  it('is released while the fsync runs; its next write waits for it', async () => {
    const { disk, fence } = await heldFence();
    const result = await fence.append([textMessage('m1', 'message')], { flush: 'deferred' });
    expect(await settledState(result.durable as Promise<void>)).toBe('pending');
    await fence.release();
    await fence.reacquire();
    const reply = fence.append([textMessage('r1', 'reply', 'assistant')]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await readFile(disk.store.transcriptPath('s'), 'utf8')).not.toContain('"reply"');
    disk.releaseAll();
    await new Promise((resolve) => setTimeout(resolve, 20));
    disk.releaseAll();
    await reply;
    await fence.end();
    expect((await disk.store.read('s')).entries.map((entry) => entry.id)).toEqual([
      'm0',
      'm1',
      'r1',
    ]);
  });

  it('after a failed fsync, its next write is refused with that storage error and writes nothing', async () => {
    const { disk, fence } = await heldFence();
    const result = await fence.append([textMessage('m1', 'message')], { flush: 'deferred' });
    await fence.release();
    disk.failAll();
    await expect(result.durable).rejects.toMatchObject({ keelKind: 'storage', code: 'EIO' });
    await fence.reacquire();
    await expect(fence.append([textMessage('r1', 'reply', 'assistant')])).rejects.toMatchObject({
      keelKind: 'storage',
      code: 'EIO',
    });
    await fence.end();
    expect(await readFile(disk.store.transcriptPath('s'), 'utf8')).not.toContain('"reply"');
  });

  it('a member of a shared write that did not defer gets its answer only once the write is durable', async () => {
    const { disk, fence } = await heldFence();
    const plain = fence.append([textMessage('m1', 'one')]);
    const deferred = fence.append([textMessage('m2', 'two')], { flush: 'deferred' });
    const result = await deferred;
    expect(await settledState(result.durable as Promise<void>)).toBe('pending');
    expect(await settledState(plain)).toBe('pending');
    disk.releaseAll();
    await expect(plain).resolves.toMatchObject({ state: result.state });
    await fence.end();
  });
});
