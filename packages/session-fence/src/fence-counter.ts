import { constants } from 'node:fs';
import { type FileSystem, readFully, writeFully } from './file-system';
import { errorCode, unsafePathError } from './safe-file';
import { SessionFenceError } from './session-fence-error';

const { O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;

/**
 * The fencing-token counter of one session: `<sessionsDir>/<sessionId>.fence`, a decimal number
 * (zero-padded to 20 digits, then `\n`), only ever rewritten in place at offset 0 by the holder
 * of the session's lock. It is never removed, so tokens only grow across leases and releases.
 *
 * It is not fsynced: a lost update needs a kernel crash or a power loss, which also ends every
 * process that held a lease of this boot, so no writer is left to present a token the counter
 * has forgotten.
 */
export async function openFenceCounter(fileSystem: FileSystem, path: string): Promise<number> {
  // O_NOFOLLOW refuses a symlink; a FIFO or a device fails its first read (O_NONBLOCK), a
  // directory the open itself. No fstat needed. The counter exists after a session's first
  // lease, so it is opened without O_CREAT first: an O_CREAT open takes the directory's lock
  // for writing even when the file exists, which costs several times a plain open.
  const flags = constants.O_RDWR | O_NOFOLLOW | O_NONBLOCK;
  try {
    try {
      return await fileSystem.open(path, flags);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      return await fileSystem.open(path, flags | constants.O_CREAT, 0o644);
    }
  } catch (error) {
    throw unsafePathError(error, path) ?? error;
  }
}

export async function readFenceCounter(
  fileSystem: FileSystem,
  fd: number,
  path: string,
): Promise<bigint> {
  const text = (await readFully(fileSystem, fd, 0, 64)).toString('latin1').trim();
  if (text === '') return 0n;
  if (!/^\d{1,40}$/.test(text)) {
    throw new SessionFenceError({
      message: `The fencing-token counter ${path} is corrupt; refusing to issue a lease`,
    });
  }
  return BigInt(text);
}

export async function writeFenceCounter(
  fileSystem: FileSystem,
  fd: number,
  value: bigint,
): Promise<void> {
  await writeFully(fileSystem, fd, Buffer.from(`${value.toString().padStart(20, '0')}\n`), 0);
}
