import { type FSWatcher, watch } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { WaitForChangeOptions } from '@keel/spec';

/** The files of a session whose change wakes its waiters: transcript and turn claim. */
const WATCHED_EXTENSIONS = ['.jsonl', '.turn', '.turn.lock'] as const;

export interface FileSessionChangesOptions {
  sessionsDir: string;
  /** How often the polling fallback looks at a session's files; default 100 ms. */
  pollMs?: number;
  /** `fs.watch`, replaceable to test the fallback. */
  watch?: (
    directory: string,
    listener: (event: string, filename: string | null) => void,
  ) => FSWatcher;
}

/**
 * `waitForChange` of the file store, as PostgreSQL's `LISTEN/NOTIFY` is for its store: a waiter
 * of a session wakes when a file of that session in the sessions directory changes (any process
 * writing it: the transcript appended, a turn claim taken or let go). One `fs.watch` of the
 * directory serves every waiter of the store and is closed when none is left. Where the directory
 * cannot be watched (not there yet, or no watch support), a waiter polls its session's transcript
 * and claim files instead (size, mtime, inode). A hint only, as the port says: a waiter looks
 * again when woken, and anyway after `timeoutMs`.
 */
export function createFileSessionChanges(options: FileSessionChangesOptions) {
  const pollMs = options.pollMs ?? 100;
  const watchDirectory =
    options.watch ??
    ((directory: string, listener: (event: string, filename: string | null) => void) =>
      watch(directory, listener));
  const waiters = new Map<string, Set<() => void>>();
  let watcher: FSWatcher | undefined;

  const wake = (filename: string) => {
    for (const [sessionId, set] of waiters) {
      if (filename === sessionId || filename.startsWith(`${sessionId}.`)) {
        for (const resolve of [...set]) resolve();
      }
    }
  };

  /** Watches the directory unless it is watched already; false when it cannot be watched. */
  function startWatching(): boolean {
    if (watcher !== undefined) return true;
    try {
      const started = watchDirectory(options.sessionsDir, (_event, filename) => {
        // Without a name (some platforms), every waiter looks again.
        if (filename === null) for (const set of waiters.values()) for (const w of [...set]) w();
        else wake(filename);
      });
      started.on('error', () => {
        if (watcher === started) watcher = undefined;
        started.close();
      });
      // A store waiting for a change must not keep the process alive by its watch.
      started.unref?.();
      watcher = started;
      return true;
    } catch {
      return false;
    }
  }

  function stopWatchingIfIdle(): void {
    if (waiters.size > 0 || watcher === undefined) return;
    watcher.close();
    watcher = undefined;
  }

  /** What the session's watched files look like now (a change of any shows). */
  async function signature(sessionId: string): Promise<string> {
    const parts = await Promise.all(
      WATCHED_EXTENSIONS.map(async (extension) => {
        try {
          const stats = await stat(join(options.sessionsDir, `${sessionId}${extension}`));
          return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
        } catch {
          return '-';
        }
      }),
    );
    return parts.join('|');
  }

  function waitForChange(sessionId: string, wait: WaitForChangeOptions): Promise<boolean> {
    const { timeoutMs, signal } = wait;
    return new Promise<boolean>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      let set = waiters.get(sessionId);
      if (set === undefined) {
        set = new Set();
        waiters.set(sessionId, set);
      }
      let poller: NodeJS.Timeout | undefined;
      const finish = () => {
        clearTimeout(timer);
        clearTimeout(poller);
        signal?.removeEventListener('abort', onAbort);
        set.delete(woken);
        if (set.size === 0 && waiters.get(sessionId) === set) waiters.delete(sessionId);
        stopWatchingIfIdle();
      };
      let done = false;
      const settle = (outcome: () => void) => {
        if (done) return;
        done = true;
        finish();
        outcome();
      };
      const woken = () => settle(() => resolve(true));
      const onAbort = () => settle(() => reject(signal?.reason));
      const timer = setTimeout(() => settle(() => resolve(false)), timeoutMs);
      set.add(woken);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (!startWatching()) {
        const seen = signature(sessionId);
        const look = async () => {
          const [before, now] = await Promise.all([seen, signature(sessionId)]);
          if (done) return;
          if (now !== before) woken();
          else poller = setTimeout(() => void look(), pollMs);
        };
        poller = setTimeout(() => void look(), pollMs);
      }
    });
  }

  return { waitForChange };
}
