import type {
  AppendResult,
  SessionTakeoverPhase,
  TranscriptEntry,
  TranscriptState,
} from '@keel/spec';
import { SessionFenceError, SessionTakeoverError } from './session-fence-error';
import { assertValidSessionId } from './session-id';
import type { SessionLockHandle } from './session-lock';
import type { LockingSessionStorage as SessionStorage } from './session-storage';

export interface SessionFenceOptions {
  storage: SessionStorage;
  sessionId: string;
  /** Lock acquire timeout for every acquire the fence makes; default: the storage's. */
  lockTimeoutMs?: number;
}

export interface FenceCallOptions {
  signal?: AbortSignal;
}

/** `idle`: never acquired; `held`: lock held; `released`: around a model call; `ended`: turn over. */
export type SessionFenceStatus = 'idle' | 'held' | 'released' | 'ended';

/**
 * One turn's hold on a session. Calls are serialised. Once a takeover is detected it is sticky:
 * every later call rejects with the same `SessionTakeoverError`, and the lock is let go at once.
 */
export interface SessionFence {
  readonly sessionId: string;
  readonly status: SessionFenceStatus;
  /** The takeover detected in this turn, if any. */
  readonly takeover: SessionTakeoverError | undefined;
  /** Turn start: takes the lock and records the transcript's state. */
  acquire(options?: FenceCallOptions): Promise<void>;
  /** Before a model call: checks the state (phase `fence_check`), keeps it, lets the lock go. */
  release(options?: FenceCallOptions): Promise<void>;
  /** After a model call: takes the lock and checks the state (phase `prompt_reacquire`). */
  reacquire(options?: FenceCallOptions): Promise<void>;
  /**
   * An owned write (reply, steering or queued inbound message). While released it takes the
   * lock just for the write. Checks first (phase `write`), then advances the expected state.
   */
  append(entries: readonly TranscriptEntry[], options?: FenceCallOptions): Promise<AppendResult>;
  /** Checks the state without changing the lock (phase `fence_check`). */
  check(options?: FenceCallOptions): Promise<void>;
  /**
   * Turn end: checks (phase `cleanup`) and lets the lock go. Rejects only when the takeover is
   * first found here; a takeover already reported earlier is not thrown a second time.
   */
  end(options?: FenceCallOptions): Promise<void>;
}

/** Creates the fence for one turn of one session. */
export function createSessionFence(options: SessionFenceOptions): SessionFence {
  const { storage, sessionId } = options;
  assertValidSessionId(sessionId);
  let status: SessionFenceStatus = 'idle';
  let lock: SessionLockHandle | undefined;
  let expected: TranscriptState | undefined;
  let takeover: SessionTakeoverError | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  function serial<T>(task: () => Promise<T>): Promise<T> {
    const result = queue.then(task);
    queue = result.catch(() => undefined);
    return result;
  }

  function lockOptions(signal: AbortSignal | undefined) {
    return options.lockTimeoutMs === undefined
      ? { signal }
      : { signal, timeoutMs: options.lockTimeoutMs };
  }

  function assertStatus(allowed: SessionFenceStatus[], action: string): void {
    if (takeover) throw takeover;
    if (!allowed.includes(status)) {
      throw new SessionFenceError({
        message: `Cannot ${action} a session fence that is ${status}`,
      });
    }
  }

  async function letGo(): Promise<void> {
    const held = lock;
    lock = undefined;
    await held?.release();
  }

  /** Compares with the expected state; on a change records the sticky takeover and lets go. */
  async function verify(
    phase: SessionTakeoverPhase,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (expected === undefined)
      throw new SessionFenceError({ message: 'Session fence has no recorded state' });
    const lockLost = status === 'held' && lock !== undefined && !(await lock.isHeld({ signal }));
    const change = lockLost ? 'lock-lost' : await storage.compare(sessionId, expected, { signal });
    if (change === undefined) return;
    takeover = new SessionTakeoverError({ sessionId, phase, change });
    await letGo();
    if (status !== 'ended') status = 'released';
    throw takeover;
  }

  return {
    sessionId,
    get status() {
      return status;
    },
    get takeover() {
      return takeover;
    },

    acquire(callOptions = {}) {
      return serial(async () => {
        assertStatus(['idle'], 'acquire');
        lock = await storage.lock(sessionId, lockOptions(callOptions.signal));
        try {
          expected = await storage.state(sessionId, callOptions);
        } catch (error) {
          await letGo();
          throw error;
        }
        status = 'held';
      });
    },

    release(callOptions = {}) {
      return serial(async () => {
        assertStatus(['held'], 'release');
        // A passing check means the transcript is exactly `expected`; it is kept as is. Reading
        // the state again here would absorb a write that slipped in between check and read.
        await verify('fence_check', callOptions.signal);
        await letGo();
        status = 'released';
      });
    },

    reacquire(callOptions = {}) {
      return serial(async () => {
        assertStatus(['released'], 'reacquire');
        lock = await storage.lock(sessionId, lockOptions(callOptions.signal));
        status = 'held';
        await verify('prompt_reacquire', callOptions.signal);
      });
    },

    append(entries, callOptions = {}) {
      return serial(async () => {
        assertStatus(['held', 'released'], 'append through');
        const temporary = status === 'released';
        if (temporary) lock = await storage.lock(sessionId, lockOptions(callOptions.signal));
        try {
          await verify('write', callOptions.signal);
          const result = await storage.append(sessionId, entries, callOptions);
          expected = result.state;
          return result;
        } finally {
          if (temporary) await letGo();
        }
      });
    },

    check(callOptions = {}) {
      return serial(async () => {
        assertStatus(['held', 'released'], 'check');
        await verify('fence_check', callOptions.signal);
      });
    },

    end(callOptions = {}) {
      return serial(async () => {
        if (status === 'ended') return;
        const wasTakenOver = takeover !== undefined;
        try {
          if (!wasTakenOver && (status === 'held' || status === 'released'))
            await verify('cleanup', callOptions.signal);
        } finally {
          await letGo();
          status = 'ended';
        }
      });
    },
  };
}
