import type {
  SessionTakeoverErrorShape,
  SessionTakeoverPhase,
  StorageErrorShape,
  StorageFailureReason,
  TranscriptChangeKind,
} from '@keel/spec';

const baseMarker = Symbol.for('keel.error.PostgresStoreError');

function hasMarker(error: unknown, marker: symbol): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[marker] === true
  );
}

export interface PostgresStoreErrorOptions {
  message: string;
  cause?: unknown;
}

/** Base class of every error `@keel/session-store-postgres` raises. Use `isInstance`, not `instanceof`. */
export class PostgresStoreError extends Error {
  readonly [baseMarker] = true;

  constructor(options: PostgresStoreErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PostgresStoreError';
  }

  static isInstance(error: unknown): error is PostgresStoreError {
    return hasMarker(error, baseMarker);
  }
}

const takeoverMarker = Symbol.for('keel.error.SessionTakeoverError');

export interface SessionTakeoverErrorOptions {
  sessionId: string;
  phase: SessionTakeoverPhase;
  change: TranscriptChangeKind;
  cause?: unknown;
}

/**
 * A write came with a lease that is no longer the session's current one (`stale-token`,
 * `lock-lost`), or the transcript is no longer in the state the writer expected. Classified as
 * `session_takeover`. Its marker is the one `@keel/session-fence` uses, so a fence over this store
 * recognises it.
 */
export class SessionTakeoverError extends PostgresStoreError implements SessionTakeoverErrorShape {
  readonly [takeoverMarker] = true;
  readonly keelKind = 'session_takeover' as const;
  readonly sessionId: string;
  readonly phase: SessionTakeoverPhase;
  readonly change: TranscriptChangeKind;

  constructor(options: SessionTakeoverErrorOptions) {
    super({
      message: `Session ${options.sessionId} was changed by another writer (${options.change}, detected at ${options.phase})`,
      cause: options.cause,
    });
    this.name = 'SessionTakeoverError';
    this.sessionId = options.sessionId;
    this.phase = options.phase;
    this.change = options.change;
  }

  static override isInstance(error: unknown): error is SessionTakeoverError {
    return hasMarker(error, takeoverMarker);
  }
}

const leaseTimeoutMarker = Symbol.for('keel.error.SessionLeaseTimeoutError');

export interface SessionLeaseTimeoutErrorOptions {
  sessionId: string;
  timeoutMs: number;
  /** The holder seen last, as it named itself. */
  holder?: string | undefined;
}

/** `lease()` waited `timeoutMs` for the current holder. Classified as `coordination`. */
export class SessionLeaseTimeoutError extends PostgresStoreError {
  readonly [leaseTimeoutMarker] = true;
  readonly keelKind = 'coordination' as const;
  readonly sessionId: string;
  readonly timeoutMs: number;
  readonly holder: string | undefined;

  constructor(options: SessionLeaseTimeoutErrorOptions) {
    const held = options.holder === undefined ? '' : ` (held by ${options.holder})`;
    super({
      message: `Timed out after ${options.timeoutMs} ms waiting for the lease of session ${options.sessionId}${held}`,
    });
    this.name = 'SessionLeaseTimeoutError';
    this.sessionId = options.sessionId;
    this.timeoutMs = options.timeoutMs;
    this.holder = options.holder;
  }

  static override isInstance(error: unknown): error is SessionLeaseTimeoutError {
    return hasMarker(error, leaseTimeoutMarker);
  }
}

const invalidEntryMarker = Symbol.for('keel.error.InvalidTranscriptEntryError');

export interface InvalidTranscriptEntryErrorOptions {
  /** Position of the bad entry in the appended batch. */
  index: number;
  detail: string;
}

/** An append was refused (and nothing written) because an entry is not a transcript entry. */
export class InvalidTranscriptEntryError extends PostgresStoreError {
  readonly [invalidEntryMarker] = true;
  readonly index: number;
  readonly detail: string;

  constructor(options: InvalidTranscriptEntryErrorOptions) {
    super({ message: `Transcript entry ${options.index} is invalid: ${options.detail}` });
    this.name = 'InvalidTranscriptEntryError';
    this.index = options.index;
    this.detail = options.detail;
  }

  static override isInstance(error: unknown): error is InvalidTranscriptEntryError {
    return hasMarker(error, invalidEntryMarker);
  }
}

const invalidSessionIdMarker = Symbol.for('keel.error.InvalidSessionIdError');

/** A session id does not match `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$` (the file store's rule). */
export class InvalidSessionIdError extends PostgresStoreError {
  readonly [invalidSessionIdMarker] = true;
  readonly sessionId: unknown;

  constructor(options: { sessionId: unknown }) {
    super({
      message:
        'Invalid session id: expected 1-128 characters [A-Za-z0-9._-], starting with a letter or digit',
    });
    this.name = 'InvalidSessionIdError';
    this.sessionId = options.sessionId;
  }

  static override isInstance(error: unknown): error is InvalidSessionIdError {
    return hasMarker(error, invalidSessionIdMarker);
  }
}

const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Throws `InvalidSessionIdError` unless `sessionId` is a valid session id. */
export function assertValidSessionId(sessionId: unknown): asserts sessionId is string {
  if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId)) {
    throw new InvalidSessionIdError({ sessionId });
  }
}

const storageMarker = Symbol.for('keel.error.StorageError');

export interface StorageErrorOptions {
  reason: StorageFailureReason;
  /** What the store was doing: `lease`, `append`, `read`, … */
  operation: string;
  sessionId?: string | undefined;
  /** The driver's code: a SQLSTATE (`57014`, `53100`) or a system code (`ECONNREFUSED`). */
  code?: string | undefined;
  cause?: unknown;
}

/**
 * The database failed the store: it is down, unreachable, frozen (no answer within the query or
 * connection timeout), out of disk or connections. Classified as `storage`: the turn ends at once,
 * saying the message could not be stored; no retry, no fallback model, never blamed on a model
 * provider. The driver's error is the `cause`; its marker is the one `@keel/session-fence` uses.
 */
export class StorageError extends PostgresStoreError implements StorageErrorShape {
  readonly [storageMarker] = true;
  readonly keelKind = 'storage' as const;
  readonly reason: StorageFailureReason;
  readonly operation: string;
  readonly sessionId: string | undefined;
  readonly code: string | undefined;

  constructor(options: StorageErrorOptions) {
    const code = options.code === undefined ? '' : ` (${options.code})`;
    const session = options.sessionId === undefined ? '' : ` of session ${options.sessionId}`;
    const detail = options.cause instanceof Error ? `: ${options.cause.message}` : '';
    super({
      message: `The ${options.operation}${session} failed in PostgreSQL: ${options.reason}${code}${detail}`,
      cause: options.cause,
    });
    this.name = 'StorageError';
    this.reason = options.reason;
    this.operation = options.operation;
    this.sessionId = options.sessionId;
    this.code = options.code;
  }

  static override isInstance(error: unknown): error is StorageError {
    return hasMarker(error, storageMarker);
  }
}
