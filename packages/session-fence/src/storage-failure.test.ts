/**
 * A file system that fails the store (a full disk, a directory it may not write): every operation
 * rejects with a `StorageError` (kind `storage`) naming what it was doing, nothing is left
 * half-written, no rejection goes unhandled, and the store works again once the disk does.
 * The full disk is real: writes are redirected to `/dev/full`, which answers every write ENOSPC.
 */
import { closeSync, openSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { classifyError } from '@keel/error-classification';
import { afterAll, describe, expect, it } from 'vitest';
import { recordingFileSystem, textMessage, useTempDir } from '../test/support';
import { type FileSystem, nodeFileSystem } from './file-system';
import { SessionTakeoverError, StorageError } from './session-fence-error';
import { createTranscriptStoreWith } from './transcript-store';

const temp = useTempDir();
const fullDevice = openSync('/dev/full', 'w');
afterAll(() => closeSync(fullDevice));

/** The real file system, whose writes fail as a full disk's do while `disk.full` is set. */
function diskThatFills(options: { partial?: boolean } = {}) {
  const disk = { full: false };
  const { fileSystem } = recordingFileSystem({
    write: async (real, fd, buffer, offset, length, position) => {
      if (!disk.full) return real(fd, buffer, offset, length, position);
      // A disk that takes part of a write, then has no room left.
      if (options.partial === true && length > 1) {
        return real(fd, buffer, offset, Math.floor(length / 2), position);
      }
      return nodeFileSystem.write(fullDevice, buffer, offset, length);
    },
  });
  return { disk, fileSystem };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

function storeOn(fileSystem: FileSystem) {
  return createTranscriptStoreWith(fileSystem, { sessionsDir: join(temp.path, 'sessions') });
}

describe('a store on a full disk', () => {
  it("the first lease of a new session rejects with a storage error (the owner record's write), and no rejection goes unhandled", async () => {
    const { disk, fileSystem } = diskThatFills();
    const store = storeOn(fileSystem);
    disk.full = true;
    const error = await rejection(store.lease('new-session'));
    expect(StorageError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({
      keelKind: 'storage',
      reason: 'no_space',
      operation: 'lease',
      sessionId: 'new-session',
      code: 'ENOSPC',
    });
    expect((error as Error).cause).toMatchObject({ code: 'ENOSPC' });
    expect(classifyError(error).kind).toBe('storage');
    // Let a rejection nobody handled surface (vitest fails the run on one).
    await new Promise((resolve) => setTimeout(resolve, 50));

    disk.full = false;
    const lease = await store.lease('new-session');
    await store.append('new-session', [textMessage('1', 'stored at last')], { lease });
    await lease.release();
    expect((await store.read('new-session')).entries).toHaveLength(1);
  });

  it('an append that the disk takes only half of rejects, and leaves the transcript as it was: the next append is no takeover', async () => {
    const { disk, fileSystem } = diskThatFills({ partial: true });
    const store = storeOn(fileSystem);
    const lease = await store.lease('half');
    const first = await store.append('half', [textMessage('1', 'before')], { lease });
    const before = await readFile(store.transcriptPath('half'));

    disk.full = true;
    const error = await rejection(
      store.append('half', [textMessage('2', 'x'.repeat(4_000))], { lease, expected: first.state }),
    );
    expect(error).toMatchObject({ keelKind: 'storage', reason: 'no_space', operation: 'append' });
    expect(await readFile(store.transcriptPath('half'))).toEqual(before);

    disk.full = false;
    await store.append('half', [textMessage('3', 'after')], { lease, expected: first.state });
    await lease.release();
    const read = await store.read('half');
    expect(read.issues).toEqual([]);
    expect(read.entries.map((entry) => entry.id)).toEqual(['1', '3']);
    expect((await stat(store.transcriptPath('half'))).size).toBeGreaterThan(before.length);
  });
});

describe('a directory the store may not write', () => {
  it('EACCES and EROFS are storage errors (permission, read_only); EMFILE is exhausted', async () => {
    for (const [code, reason] of [
      ['EACCES', 'permission'],
      ['EROFS', 'read_only'],
      ['EMFILE', 'exhausted'],
    ] as const) {
      const { fileSystem } = recordingFileSystem({
        open: async () => {
          throw Object.assign(new Error(`${code}: refused, open`), { code, syscall: 'open' });
        },
      });
      const error = await rejection(storeOn(fileSystem).lease(`refused-${code}`));
      expect(error, code).toMatchObject({ keelKind: 'storage', reason, code, operation: 'lease' });
      expect(classifyError(error).kind, code).toBe('storage');
    }
  });

  it("keeps the store's own errors as they are: a takeover stays a takeover, a missing transcript is empty", async () => {
    const store = storeOn(nodeFileSystem);
    expect((await store.read('never-written')).entries).toEqual([]);
    const old = await store.lease('taken');
    await old.release();
    const current = await store.lease('taken');
    const error = await rejection(
      store.append('taken', [textMessage('1', 'late')], { lease: old }),
    );
    await current.release();
    expect(SessionTakeoverError.isInstance(error)).toBe(true);
    expect(StorageError.isInstance(error)).toBe(false);
  });
});
