import type { BigIntStats, Stats } from 'node:fs';
import { constants } from 'node:fs';
import { lstat } from 'node:fs/promises';
import type { FileSystem } from './file-system';
import { UnsafeTranscriptPathError } from './session-fence-error';

const { O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;

export interface OpenedFile {
  fd: number;
  stats: BigIntStats;
}

/**
 * Opens `path` without following a symlink at its last component (O_NOFOLLOW) and without
 * blocking on a FIFO (O_NONBLOCK), then insists on a regular file. The fstat that proves it is
 * returned, so callers need not stat again.
 */
export async function openRegularFile(
  fileSystem: FileSystem,
  path: string,
  flags: number,
  mode = 0o600,
): Promise<OpenedFile> {
  let fd: number;
  try {
    fd = await fileSystem.open(path, flags | O_NOFOLLOW | O_NONBLOCK, mode);
  } catch (error) {
    throw unsafePathError(error, path) ?? error;
  }
  try {
    const stats = await fileSystem.fstat(fd);
    if (!stats.isFile()) throw new UnsafeTranscriptPathError({ path, reason: 'not-regular' });
    return { fd, stats };
  } catch (error) {
    await fileSystem.close(fd);
    throw error;
  }
}

/** `openRegularFile` that answers `undefined` for a missing file. */
export async function openRegularFileIfExists(
  fileSystem: FileSystem,
  path: string,
  flags: number,
): Promise<OpenedFile | undefined> {
  try {
    return await openRegularFile(fileSystem, path, flags);
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** The typed error for an open that hit a symlink (ELOOP) or a directory (EISDIR). */
export function unsafePathError(
  error: unknown,
  path: string,
): UnsafeTranscriptPathError | undefined {
  if (errorCode(error) === 'ELOOP') {
    return new UnsafeTranscriptPathError({ path, reason: 'symlink', cause: error });
  }
  if (errorCode(error) === 'EISDIR') {
    return new UnsafeTranscriptPathError({ path, reason: 'not-regular', cause: error });
  }
  return undefined;
}

/** `lstat` that answers `undefined` for a missing path. */
export async function lstatIfExists(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return undefined;
    throw error;
  }
}

export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
