import type { FileSystem } from './file-system';

/** What a heartbeat reports: a failed refresh or check, or the lock found no longer held. */
export type HeartbeatReport = { type: 'failed'; error: unknown } | { type: 'lost' };

/**
 * Every `intervalMs`, checks that the lock path still names the holder's file and refreshes its
 * mtime through the holder's descriptor, both at once (the check's `lstat` made first). Failures
 * and a lost lock are reported, never swallowed; after a loss it stops. Unref'd: it never keeps a
 * process alive.
 */
export function startHeartbeat(options: {
  fileSystem: FileSystem;
  fd: number;
  intervalMs: number;
  isHeld: () => Promise<boolean>;
  report: (report: HeartbeatReport) => void;
}): { stop(): void } {
  let stopped = false;
  let beating = false;
  const beat = async (): Promise<void> => {
    const now = new Date();
    // The look first: it must see the heartbeat before this one (what a contender judging the
    // lock stale would have seen), not this refresh (see `LockProof`).
    const [held, touched] = await Promise.allSettled([
      options.isHeld(),
      options.fileSystem.futimes(options.fd, now, now),
    ]);
    if (stopped) return;
    if (touched.status === 'rejected') options.report({ type: 'failed', error: touched.reason });
    if (held.status === 'rejected') {
      options.report({ type: 'failed', error: held.reason });
    } else if (!held.value) {
      stop();
      options.report({ type: 'lost' });
    }
  };
  const timer = setInterval(() => {
    if (beating) return;
    beating = true;
    beat().finally(() => {
      beating = false;
    });
  }, options.intervalMs);
  timer.unref();
  function stop(): void {
    stopped = true;
    clearInterval(timer);
  }
  return { stop };
}
