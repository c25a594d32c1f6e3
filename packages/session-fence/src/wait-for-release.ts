import { watch } from 'node:fs';
import { abortableDelay } from './abortable-delay';
import { errorCode } from './safe-file';

/**
 * A waiter's pause between two tries of a held lock: `ms` at most, less when the lock file at
 * `path` changes meanwhile — its holder letting go unlinks it (its link count changes), a heartbeat
 * touches it — or is gone already: the next try then comes at once instead of a poll interval
 * later (two gateways over one folder hand a session over in about a millisecond, not 25–50).
 * Watched by inode with `fs.watch`; a file that cannot be watched is waited for the whole `ms`.
 * On abort rejects with the signal's reason, like `abortableDelay`.
 */
export async function waitForRelease(
  path: string,
  ms: number,
  signal?: AbortSignal,
): Promise<void> {
  const changed = new AbortController();
  let stop = () => {};
  try {
    const watcher = watch(path, { persistent: false }, () => changed.abort());
    watcher.on('error', () => changed.abort());
    stop = () => watcher.close();
  } catch (error) {
    // Let go (and unlinked) since it was seen held: try again almost at once (never a busy loop).
    if (errorCode(error) === 'ENOENT') return abortableDelay(Math.min(ms, 1), signal);
  }
  try {
    await abortableDelay(
      ms,
      signal === undefined ? changed.signal : AbortSignal.any([signal, changed.signal]),
    );
  } catch (error) {
    signal?.throwIfAborted();
    if (!changed.signal.aborted) throw error;
  } finally {
    stop();
  }
}
