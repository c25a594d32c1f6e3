import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, link, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { sleep } from './abort';
import { errorCode, lstatIfExists, openRegularFile } from './safe-file';
import { SessionLockTimeoutError, UnsafeTranscriptPathError } from './session-fence-error';

export interface SessionLockOptions {
  /** The lock file, e.g. `<sessionsDir>/<sessionId>.lock`. */
  path: string;
  /** A lock whose heartbeat is older than this is stale; default 10 000. */
  staleMs?: number;
  /** How often the holder refreshes its heartbeat; default `staleMs / 4`. */
  heartbeatMs?: number;
  /** Default acquire timeout; default 30 000. */
  timeoutMs?: number;
  /** Base delay between acquire attempts (plus up to 100 % jitter); default 25. */
  pollMs?: number;
}

export interface LockCallOptions {
  signal?: AbortSignal;
}

export interface SessionLockAcquireOptions {
  signal?: AbortSignal;
  /** Overrides the lock's `timeoutMs` for this call. */
  timeoutMs?: number;
}

/** Who holds a lock, as written in the lock file. */
export interface LockOwner {
  pid: number;
  host: string;
  token: string;
  acquiredAt: string;
}

export interface SessionLockHandle {
  readonly owner: LockOwner;
  readonly released: boolean;
  /** True while the lock file on disk is still this handle's own file. */
  isHeld(options?: LockCallOptions): Promise<boolean>;
  /**
   * Stops the heartbeat and removes the lock file if it is still ours. Idempotent. Takes no
   * signal on purpose: cleanup must run to the end.
   */
  release(): Promise<void>;
}

export interface SessionLock {
  readonly path: string;
  /** Waits until the lock is free or stale, up to the timeout (`SessionLockTimeoutError`). */
  acquire(options?: SessionLockAcquireOptions): Promise<SessionLockHandle>;
  /** One attempt: a handle, or `undefined` if someone else holds a live lock. */
  tryAcquire(options?: LockCallOptions): Promise<SessionLockHandle | undefined>;
  /** The current owner, or `undefined` when the lock is free or unreadable. */
  readOwner(options?: LockCallOptions): Promise<LockOwner | undefined>;
}

interface Observed {
  owner: LockOwner | undefined;
  ino: bigint;
  mtimeMs: number;
}

/**
 * A cross-process lock built on one file. Creation is atomic and exclusive: the owner record is
 * written to a private temp file which is then hard-linked to the lock path (`link` fails with
 * EEXIST if the lock exists), so no reader ever sees a half-written lock. The holder refreshes
 * the file's mtime as its heartbeat through its own file descriptor. A lock is stale when its
 * owner's pid is dead on this host or its heartbeat is older than `staleMs`. Any removal, by the
 * owner or by a contender taking over, first creates `<path>.<token>.removing` with O_EXCL and
 * then re-checks the token, so a lock can only ever be removed by one party, and only the
 * exact lock that was judged; the winner of a takeover is decided by the next `link`.
 */
export function createSessionLock(options: SessionLockOptions): SessionLock {
  const path = options.path;
  const staleMs = options.staleMs ?? 10_000;
  const heartbeatMs = Math.max(1, options.heartbeatMs ?? Math.floor(staleMs / 4));
  const defaultTimeoutMs = options.timeoutMs ?? 30_000;
  const pollMs = options.pollMs ?? 25;
  const host = hostname();

  async function observe(): Promise<Observed | undefined> {
    const stats = await lstatIfExists(path);
    if (stats === undefined) return undefined;
    if (stats.isSymbolicLink()) throw new UnsafeTranscriptPathError({ path, reason: 'symlink' });
    let owner: LockOwner | undefined;
    let ino: bigint;
    try {
      const handle = await openRegularFile(path, constants.O_RDONLY);
      try {
        ino = (await handle.stat({ bigint: true })).ino;
        owner = parseOwner(await handle.readFile('utf8'));
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
    return { owner, ino, mtimeMs: stats.mtimeMs };
  }

  function isStale(observed: Observed): boolean {
    const { owner } = observed;
    if (owner !== undefined && owner.host === host && !isProcessAlive(owner.pid)) return true;
    return Date.now() - observed.mtimeMs > staleMs;
  }

  /**
   * Removes the lock file only if it is still the one identified by `key` (and, for a takeover,
   * still stale: a heartbeat may have landed since it was judged).
   */
  async function removeIfStill(
    key: { token?: string; ino: bigint },
    takeover: boolean,
  ): Promise<void> {
    const marker = `${path}.${key.token ?? `ino-${key.ino}`}.removing`;
    let markerHandle: FileHandle;
    try {
      markerHandle = await openRegularFile(
        marker,
        constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY,
      );
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      // Someone else is removing this lock. A marker older than staleMs was abandoned by a crash.
      const stats = await lstatIfExists(marker);
      if (stats !== undefined && Date.now() - stats.mtimeMs > staleMs) await unlinkIfExists(marker);
      return;
    }
    try {
      await markerHandle.close();
      const current = await observe();
      if (current === undefined) return;
      const same =
        key.token !== undefined ? current.owner?.token === key.token : current.ino === key.ino;
      if (same && (!takeover || isStale(current))) await unlinkIfExists(path);
    } finally {
      await unlinkIfExists(marker);
    }
  }

  async function tryAcquire(
    callOptions: LockCallOptions = {},
  ): Promise<SessionLockHandle | undefined> {
    callOptions.signal?.throwIfAborted();
    const present = await observe();
    if (present !== undefined && !isStale(present)) return undefined;
    const owner: LockOwner = {
      pid: process.pid,
      host,
      token: randomUUID(),
      acquiredAt: new Date().toISOString(),
    };
    const temp = `${path}.${owner.token}.tmp`;
    const handle = await openRegularFile(
      temp,
      constants.O_CREAT | constants.O_EXCL | constants.O_RDWR,
      0o644,
    );
    let linked = false;
    try {
      await handle.writeFile(`${JSON.stringify(owner)}\n`);
      for (let attempt = 0; attempt < 3 && !linked; attempt += 1) {
        try {
          await link(temp, path);
          linked = true;
        } catch (error) {
          if (errorCode(error) !== 'EEXIST') throw error;
          const observed = await observe();
          if (observed === undefined) continue;
          if (!isStale(observed)) return undefined;
          await removeIfStill({ token: observed.owner?.token, ino: observed.ino }, true);
        }
      }
    } finally {
      await unlinkIfExists(temp);
      if (!linked) await handle.close();
    }
    return linked ? createHandle(handle, owner) : undefined;
  }

  function createHandle(handle: FileHandle, owner: LockOwner): SessionLockHandle {
    let released = false;
    const timer = setInterval(() => {
      const now = new Date();
      handle.utimes(now, now).catch(() => {});
    }, heartbeatMs);
    timer.unref();
    return {
      owner,
      get released() {
        return released;
      },
      async isHeld(callOptions: LockCallOptions = {}) {
        callOptions.signal?.throwIfAborted();
        if (released) return false;
        const observed = await observe();
        return observed?.owner?.token === owner.token;
      },
      async release() {
        if (released) return;
        released = true;
        clearInterval(timer);
        try {
          const ino = (await handle.stat({ bigint: true })).ino;
          await removeIfStill({ token: owner.token, ino }, false);
        } finally {
          await handle.close();
        }
      },
    };
  }

  return {
    path,
    tryAcquire,
    async readOwner(callOptions: LockCallOptions = {}) {
      callOptions.signal?.throwIfAborted();
      return (await observe())?.owner;
    },
    async acquire(acquireOptions = {}) {
      const { signal } = acquireOptions;
      const timeoutMs = acquireOptions.timeoutMs ?? defaultTimeoutMs;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        signal?.throwIfAborted();
        const acquired = await tryAcquire();
        if (acquired !== undefined) {
          if (signal?.aborted) {
            await acquired.release();
            signal.throwIfAborted();
          }
          return acquired;
        }
        const remaining = deadline - Date.now();
        if (remaining <= 0) {
          const seen = await observe().catch(() => undefined);
          const owner = seen?.owner ? { pid: seen.owner.pid, host: seen.owner.host } : undefined;
          throw new SessionLockTimeoutError({ lockPath: path, timeoutMs, owner });
        }
        await sleep(Math.min(remaining, pollMs + Math.random() * pollMs), signal);
      }
    },
  };
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const { pid, host, token, acquiredAt } = value as Record<string, unknown>;
    if (typeof pid !== 'number' || typeof host !== 'string' || typeof token !== 'string')
      return undefined;
    return { pid, host, token, acquiredAt: typeof acquiredAt === 'string' ? acquiredAt : '' };
  } catch {
    return undefined;
  }
}

/** `process.kill(pid, 0)`: ESRCH means no such process; EPERM means it exists. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

async function unlinkIfExists(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}
