import { type BigIntStats, constants } from 'node:fs';
import { type FileSystem, readFully } from './file-system';
import {
  isProcessAlive,
  type LockOwner,
  parseOwner,
  processIdentity,
  sharesProcessTable,
} from './lock-owner';
import { errorCode, unsafePathError } from './safe-file';
import { UnsafeTranscriptPathError } from './session-fence-error';

const { O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;
const TOKEN_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A lock path, the file system it lives on, and the default ttl of a holder that set none. */
export interface LockPath {
  fileSystem: FileSystem;
  path: string;
  staleMs: number;
}

/** One file's identity: what a lock removal must prove it removes. */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
}

/** A holder's own lock file: its open descriptor and private name. */
export interface LockFile extends FileIdentity {
  fd: number;
  privatePath: string;
}

export interface ObservedLock extends FileIdentity {
  /** `undefined` when the content is not a whole owner record (being written, or foreign). */
  owner: LockOwner | undefined;
  mtimeMs: number;
  stale: boolean;
}

/** Reads the lock at `path`: owner, identity, heartbeat and whether it is stale. */
export async function observeLock(lock: LockPath): Promise<ObservedLock | undefined> {
  const { fileSystem, path } = lock;
  let fd: number;
  try {
    fd = await fileSystem.open(path, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw unsafePathError(error, path) ?? error;
  }
  try {
    const [stats, content] = await Promise.all([
      fileSystem.fstat(fd),
      readFully(fileSystem, fd, 0, 4096),
    ]);
    if (!stats.isFile()) throw new UnsafeTranscriptPathError({ path, reason: 'not-regular' });
    const owner = parseOwner(content.toString('utf8'));
    const mtimeMs = Number(stats.mtimeMs);
    return { owner, dev: stats.dev, ino: stats.ino, mtimeMs, stale: isStale(lock, owner, mtimeMs) };
  } finally {
    await fileSystem.close(fd);
  }
}

/**
 * Stale: its owner's pid is dead and can be looked up here (same host, boot and pid namespace),
 * or its heartbeat is older than the owner's ttl (else `staleMs`).
 */
function isStale(lock: LockPath, owner: LockOwner | undefined, mtimeMs: number): boolean {
  if (
    owner !== undefined &&
    sharesProcessTable(owner, processIdentity()) &&
    !isProcessAlive(owner.pid)
  )
    return true;
  return Date.now() - mtimeMs > (owner?.ttlMs ?? lock.staleMs);
}

/**
 * Removes the lock file at `lock.path` only if it is exactly `judged` (by device and inode), for
 * a holder releasing its own lock or a contender taking over a stale one (`judged` then also
 * carries what made it stale, which is checked again first). Returns the removed file's stats as
 * moved (its link count shows its other names), `undefined` when it removed nothing.
 *
 * Why rename, then compare: `unlink(path)` removes whatever the path names at that instant, and a
 * successor may have replaced the judged file between any check and the unlink (a holder frozen
 * in between, SIGSTOP or a long GC pause). `rename(path, tomb)` is one atomic step that moves
 * whatever the path names to a name only this caller uses; `lstat(tomb)` then shows what was
 * moved. If it is the judged file, unlinking the tomb removes exactly that file. If it is not (a
 * successor's lock), it goes straight back with `link(tomb, path)` — link, not rename, so a lock
 * created in that instant is never overwritten — and the tomb is unlinked. In that window of a
 * few microseconds the successor's lock file is away; the fencing token still refuses every
 * write made under an older lease. Link-count checks on our own descriptor were considered and
 * rejected: they cannot tell our file at `path` from our file at another remover's tomb.
 */
export async function removeLockFile(
  lock: LockPath,
  judged: FileIdentity | ObservedLock,
  tomb: string,
): Promise<BigIntStats | undefined> {
  const { fileSystem, path } = lock;
  if ('stale' in judged && !(await stillStale(lock, judged))) return undefined;
  try {
    await fileSystem.rename(path, tomb);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  const moved = await fileSystem.lstat(tomb);
  if (moved.dev === judged.dev && moved.ino === judged.ino) {
    await Promise.all([fileSystem.unlink(tomb), removeAbandonedPrivateFile(lock, judged)]);
    return moved;
  }
  try {
    await fileSystem.link(tomb, path);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
  } finally {
    await fileSystem.unlink(tomb);
  }
  return undefined;
}

/** The judged file is still at `path` and still stale (a heartbeat may have landed since). */
async function stillStale(lock: LockPath, judged: ObservedLock): Promise<boolean> {
  try {
    const stats = await lock.fileSystem.lstat(lock.path);
    if (stats.dev !== judged.dev || stats.ino !== judged.ino) return false;
    return isStale(lock, judged.owner, Number(stats.mtimeMs));
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
}

/** A stale holder that crashed left its private name behind; remove it with its lock. */
async function removeAbandonedPrivateFile(
  lock: LockPath,
  judged: FileIdentity | ObservedLock,
): Promise<void> {
  // Only for a takeover: a holder releasing its own lock removes its private name itself.
  const token = 'stale' in judged ? judged.owner?.token : undefined;
  if (token === undefined || !TOKEN_PATTERN.test(token)) return;
  await lock.fileSystem.unlink(`${lock.path}.${token}.tmp`).catch(() => {});
}
