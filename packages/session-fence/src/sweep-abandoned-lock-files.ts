import { constants } from 'node:fs';
import { join } from 'node:path';
import { type FileSystem, readFully } from './file-system';
import { isProcessAlive, parseOwner, processIdentity, sharesProcessTable } from './lock-owner';

const { O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;
const PRIVATE_LOCK_FILE =
  /\.lock\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/;

/**
 * Removes the private lock files (`<id>.lock.<token>.tmp`, see `createCandidates`) in
 * `sessionsDir` whose owner is a dead process of this very process table (same host, boot and
 * pid namespace): the spares of a process killed before it could remove them. A file whose
 * owner is alive, unknown or elsewhere is left alone. Removing a private name never removes a
 * lock: a lock is the file at `<id>.lock`. Resolves with the number removed; never rejects.
 */
export async function sweepAbandonedLockFiles(
  fileSystem: FileSystem,
  sessionsDir: string,
): Promise<number> {
  let names: string[];
  try {
    names = await fileSystem.readdir(sessionsDir);
  } catch {
    return 0;
  }
  const self = processIdentity();
  let removed = 0;
  for (const name of names) {
    if (!PRIVATE_LOCK_FILE.test(name)) continue;
    const path = join(sessionsDir, name);
    try {
      const fd = await fileSystem.open(path, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      let text: string;
      try {
        text = (await readFully(fileSystem, fd, 0, 4096)).toString('utf8');
      } finally {
        await fileSystem.close(fd);
      }
      const owner = parseOwner(text);
      if (owner === undefined || !sharesProcessTable(owner, self) || isProcessAlive(owner.pid))
        continue;
      await fileSystem.unlink(path);
      removed += 1;
    } catch {
      // Gone meanwhile, or unreadable: left as it is.
    }
  }
  return removed;
}
