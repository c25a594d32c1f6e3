import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';
import { UnsafeTranscriptPathError } from './session-fence-error';

const { O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;

/**
 * Opens `path` without following a symlink at its last component (O_NOFOLLOW) and without
 * blocking on a FIFO (O_NONBLOCK), then insists on a regular file.
 */
export async function openRegularFile(
  path: string,
  flags: number,
  mode = 0o600,
): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, flags | O_NOFOLLOW | O_NONBLOCK, mode);
  } catch (error) {
    if (errorCode(error) === 'ELOOP') {
      throw new UnsafeTranscriptPathError({ path, reason: 'symlink', cause: error });
    }
    if (errorCode(error) === 'EISDIR') {
      throw new UnsafeTranscriptPathError({ path, reason: 'not-regular', cause: error });
    }
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new UnsafeTranscriptPathError({ path, reason: 'not-regular' });
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
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
