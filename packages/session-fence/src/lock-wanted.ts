import { watch } from 'node:fs';
import type { FileSystem } from './file-system';
import type { FileIdentity, ObservedLock } from './lock-file';
import { errorCode } from './safe-file';

/**
 * A waiter's ask to a lock's holder in another process: a hard link `<lock>.wanted` to the lock
 * file it found held. The holder's file normally has two names (the lock path and the holder's
 * private one), so a third shows in the link count of every `lstat` the holder makes of its lock
 * anyway (each heartbeat, `isHeld`, the lease check of every owned write): asking costs the holder
 * no call of its own. A link and not a file of its own, so an ask names the very hold it was made
 * to: one left over from an earlier hold (its holder gone, or it let go first) names another
 * inode, and is replaced by the next waiter, never mistaken for an ask to the new holder. Asking
 * again replaces the link, so a holder that watches its file (`onWanted`) sees each ask.
 *
 * A hint only: every failure is ignored (the waiter polls the lock as before, and the holder lets
 * go at the end of its hold anyway).
 */
export async function signalWanted(fileSystem: FileSystem, lockPath: string): Promise<void> {
  const wanted = `${lockPath}.wanted`;
  try {
    for (let round = 0; round < 2; round += 1) {
      try {
        await fileSystem.link(lockPath, wanted);
        return;
      } catch (error) {
        // ENOENT: the lock was let go meanwhile, there is nobody left to ask.
        if (errorCode(error) !== 'EEXIST') return;
      }
      // An ask to an earlier hold, or ours, made again: a new link is what the holder watches.
      await fileSystem.unlink(wanted);
    }
  } catch {
    // A hint: see above.
  }
}

/** The holder, letting go: removes an ask that names its file (`own`), if there is one. */
export async function clearWanted(
  fileSystem: FileSystem,
  lockPath: string,
  own: FileIdentity,
): Promise<void> {
  const wanted = `${lockPath}.wanted`;
  try {
    const there = await fileSystem.lstat(wanted);
    if (there.dev === own.dev && there.ino === own.ino) await fileSystem.unlink(wanted);
  } catch {
    // Gone already, or replaced by an ask to a newer hold: nothing of ours to remove.
  }
}

/**
 * Watches the file at `path` (by inode: every name of it) and calls `onChange` on each change of
 * its attributes (its link count among them). Returns the stop function; a file that cannot be
 * watched is not (the caller has its heartbeat).
 */
export function watchLinks(path: string, onChange: () => void): () => void {
  try {
    const watcher = watch(path, { persistent: false }, onChange);
    watcher.on('error', () => watcher.close());
    return () => watcher.close();
  } catch {
    return () => {};
  }
}

/** A hold a waiter asked to let go (its lock file), and when. */
export interface AskedHold extends FileIdentity {
  at: number;
}

/** How often a waiter asks the same hold again (an ask can be lost in a race with a release). */
const ASK_AGAIN_MS = 500;

/** Whether a waiter asks the hold it saw: a new hold, or one it asked a while ago. */
export function shouldAsk(seen: ObservedLock, asked: AskedHold | undefined): boolean {
  if (asked === undefined || seen.dev !== asked.dev || seen.ino !== asked.ino) return true;
  return Date.now() - asked.at >= ASK_AGAIN_MS;
}
