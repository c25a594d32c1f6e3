/**
 * What the gateway knows about its session store's health: the failures its calls met (a full
 * disk, a database down or frozen), the transcript lines or rows a read skipped, and whether the
 * store answers now (`/healthz`). The store's own methods are observed in place — the object
 * stays the same one, so nothing keyed on it (a lease's store, a finalizer) changes.
 */
import type {
  SessionStorage,
  StorageErrorShape,
  StorageFailureReason,
  TranscriptIssue,
  TranscriptRead,
} from '@keel/spec';

/** Something the gateway logs about its store. */
export type StorageNotice =
  | {
      type: 'failure';
      reason: StorageFailureReason;
      operation: string;
      sessionId: string | undefined;
      code: string | undefined;
    }
  | { type: 'issues'; sessionId: string; issues: readonly TranscriptIssue[] };

type StorageFailure = Extract<StorageNotice, { type: 'failure' }>;

export interface StorageStatus {
  /** The last storage failure of any call. */
  readonly lastFailure: StorageFailure | undefined;
  /** The last storage failure of a call for `sessionId` (the latest sessions only). */
  failureOf(sessionId: string): StorageFailure | undefined;
  /** Whether the store answers now: one probe at a time, ended by `signal`. */
  ready(signal: AbortSignal): Promise<{ ready: true } | { ready: false; reason: string }>;
  /** Hears every failure and every read that skipped unusable lines; returns an unsubscribe. */
  subscribe(listener: (notice: StorageNotice) => void): () => void;
}

const statuses = new WeakMap<SessionStorage, StorageStatus>();

/** The status `watchStorage` keeps for `storage`, if it watches it. */
export function storageStatusOf(storage: SessionStorage): StorageStatus | undefined {
  return statuses.get(storage);
}

const STORAGE_MARKER = Symbol.for('keel.error.StorageError');

/** A store's `StorageError` (either store's: they share the marker). */
export function asStorageError(error: unknown): StorageErrorShape | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  return (error as Record<symbol, unknown>)[STORAGE_MARKER] === true &&
    (error as { keelKind?: unknown }).keelKind === 'storage'
    ? (error as StorageErrorShape)
    : undefined;
}

/** Sessions whose last storage failure is remembered (the oldest is forgotten first). */
const REMEMBERED_SESSIONS = 1_000;

const OBSERVED = ['lease', 'append', 'read', 'readTail', 'state', 'compare'] as const;
/** The turn claims' calls (across gateways): a frozen database may fail them first. */
const CLAIMS_OBSERVED = ['claimTurn', 'currentTurn', 'appendQueued', 'queuedSince'] as const;
const READS: ReadonlySet<string> = new Set(['read', 'readTail']);

/**
 * Observes `storage`'s calls (in place) and answers readiness with `probe` (a query to the
 * database, a check that the sessions directory is writable).
 */
export function watchStorage(
  storage: SessionStorage,
  probe: (signal: AbortSignal) => Promise<void>,
): StorageStatus {
  const listeners = new Set<(notice: StorageNotice) => void>();
  let lastFailure: StorageFailure | undefined;
  const bySession = new Map<string, StorageFailure>();
  let probing: Promise<void> | undefined;
  const notify = (notice: StorageNotice) => {
    for (const listener of listeners) {
      try {
        listener(notice);
      } catch {
        // A listener's failure is its own.
      }
    }
  };
  const observe = (owner: object, names: readonly string[]) => {
    const target = owner as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const name of names) {
      const original = target[name];
      if (typeof original !== 'function') continue;
      target[name] = async (...args: unknown[]) => {
        try {
          const result = await original.apply(owner, args);
          const issues = READS.has(name) ? (result as TranscriptRead).issues : undefined;
          if (issues !== undefined && issues.length > 0) {
            notify({ type: 'issues', sessionId: String(args[0]), issues });
          }
          return result;
        } catch (error) {
          const failure = asStorageError(error);
          if (failure !== undefined) {
            lastFailure = {
              type: 'failure',
              reason: failure.reason,
              operation: failure.operation,
              sessionId: failure.sessionId,
              code: failure.code,
            };
            if (failure.sessionId !== undefined) {
              bySession.delete(failure.sessionId);
              bySession.set(failure.sessionId, lastFailure);
              if (bySession.size > REMEMBERED_SESSIONS) {
                const oldest = bySession.keys().next().value;
                if (oldest !== undefined) bySession.delete(oldest);
              }
            }
            notify(lastFailure);
          }
          throw error;
        }
      };
    }
  };
  observe(storage, OBSERVED);
  if (storage.turnClaims !== undefined) observe(storage.turnClaims, CLAIMS_OBSERVED);
  const status: StorageStatus = {
    get lastFailure() {
      return lastFailure;
    },
    failureOf: (sessionId) => bySession.get(sessionId),
    async ready(signal) {
      probing ??= probe(signal).finally(() => {
        probing = undefined;
      });
      try {
        await abortableWait(probing, signal);
        return { ready: true };
      } catch (error) {
        return { ready: false, reason: asStorageError(error)?.reason ?? 'unavailable' };
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  statuses.set(storage, status);
  return status;
}

/** `promise`, or a rejection as soon as `signal` aborts (the probe itself goes on). */
function abortableWait(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
