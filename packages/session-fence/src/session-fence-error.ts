import type {
  SessionTakeoverErrorShape,
  SessionTakeoverPhase,
  StorageErrorShape,
  StorageFailureReason,
  TranscriptChangeKind,
} from '@keel/spec';

const baseMarker = Symbol.for('keel.error.SessionFenceError');

export interface SessionFenceErrorOptions {
  message: string;
  cause?: unknown;
}

/** Base class of every error `@keel/session-fence` raises. Use `isInstance`, not `instanceof`. */
export class SessionFenceError extends Error {
  readonly [baseMarker] = true;

  constructor(options: SessionFenceErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SessionFenceError';
  }

  static isInstance(error: unknown): error is SessionFenceError {
    return hasMarker(error, baseMarker);
  }
}

function hasMarker(error: unknown, marker: symbol): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[marker] === true
  );
}

const invalidSessionIdMarker = Symbol.for('keel.error.InvalidSessionIdError');

export interface InvalidSessionIdErrorOptions {
  sessionId: unknown;
  message?: string;
}

/** A session id does not match `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`. */
export class InvalidSessionIdError extends SessionFenceError {
  readonly [invalidSessionIdMarker] = true;
  readonly sessionId: unknown;

  constructor(options: InvalidSessionIdErrorOptions) {
    super({
      message:
        options.message ??
        'Invalid session id: expected 1-128 characters [A-Za-z0-9._-], starting with a letter or digit',
    });
    this.name = 'InvalidSessionIdError';
    this.sessionId = options.sessionId;
  }

  static override isInstance(error: unknown): error is InvalidSessionIdError {
    return hasMarker(error, invalidSessionIdMarker);
  }
}

const unsafePathMarker = Symbol.for('keel.error.UnsafeTranscriptPathError');

export interface UnsafeTranscriptPathErrorOptions {
  path: string;
  reason: 'symlink' | 'not-regular';
  cause?: unknown;
}

/** A transcript or lock path is a symlink or not a regular file; it is never followed. */
export class UnsafeTranscriptPathError extends SessionFenceError {
  readonly [unsafePathMarker] = true;
  readonly path: string;
  readonly reason: 'symlink' | 'not-regular';

  constructor(options: UnsafeTranscriptPathErrorOptions) {
    super({
      message: `Refusing to use ${options.path}: ${options.reason === 'symlink' ? 'it is a symbolic link' : 'it is not a regular file'}`,
      cause: options.cause,
    });
    this.name = 'UnsafeTranscriptPathError';
    this.path = options.path;
    this.reason = options.reason;
  }

  static override isInstance(error: unknown): error is UnsafeTranscriptPathError {
    return hasMarker(error, unsafePathMarker);
  }
}

const invalidEntryMarker = Symbol.for('keel.error.InvalidTranscriptEntryError');

export interface InvalidTranscriptEntryErrorOptions {
  /** Position of the bad entry in the appended batch. */
  index: number;
  detail: string;
}

/** An append was refused because an entry does not have the shape of a transcript entry. */
export class InvalidTranscriptEntryError extends SessionFenceError {
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

const lockTimeoutMarker = Symbol.for('keel.error.SessionLockTimeoutError');

export interface SessionLockTimeoutErrorOptions {
  lockPath: string;
  timeoutMs: number;
  /** The owner seen last, if the lock file could be read. */
  owner?: { pid: number; host: string } | undefined;
}

/** The session lock could not be acquired within `timeoutMs`. Classified as `coordination`. */
export class SessionLockTimeoutError extends SessionFenceError {
  readonly [lockTimeoutMarker] = true;
  readonly keelKind = 'coordination' as const;
  readonly lockPath: string;
  readonly timeoutMs: number;
  readonly owner: { pid: number; host: string } | undefined;

  constructor(options: SessionLockTimeoutErrorOptions) {
    const held = options.owner
      ? ` (held by pid ${options.owner.pid} on ${options.owner.host})`
      : '';
    super({ message: `Timed out after ${options.timeoutMs} ms acquiring the session lock${held}` });
    this.name = 'SessionLockTimeoutError';
    this.lockPath = options.lockPath;
    this.timeoutMs = options.timeoutMs;
    this.owner = options.owner;
  }

  static override isInstance(error: unknown): error is SessionLockTimeoutError {
    return hasMarker(error, lockTimeoutMarker);
  }
}

const takeoverMarker = Symbol.for('keel.error.SessionTakeoverError');

export interface SessionTakeoverErrorOptions {
  sessionId: string;
  phase: SessionTakeoverPhase;
  change: TranscriptChangeKind;
  message?: string;
  cause?: unknown;
}

/**
 * The transcript changed under a fence, or a write came with a lease that is no longer current
 * (`lock-lost`, `stale-token`). Classified as `session_takeover`.
 */
export class SessionTakeoverError extends SessionFenceError implements SessionTakeoverErrorShape {
  readonly [takeoverMarker] = true;
  readonly keelKind = 'session_takeover' as const;
  readonly sessionId: string;
  readonly phase: SessionTakeoverPhase;
  readonly change: TranscriptChangeKind;

  constructor(options: SessionTakeoverErrorOptions) {
    super({
      message:
        options.message ??
        `Session ${options.sessionId} was changed by another writer (${options.change}, detected at ${options.phase})`,
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

const storageMarker = Symbol.for('keel.error.StorageError');

export interface StorageErrorOptions {
  reason: StorageFailureReason;
  /** What the store was doing: `lease`, `append`, `read`, … */
  operation: string;
  sessionId?: string | undefined;
  /** The system error code (`ENOSPC`, `EACCES`, …). */
  code?: string | undefined;
  cause?: unknown;
}

/**
 * The file system failed the store (a full disk or quota, a read-only or unwritable directory, no
 * file descriptors left, an I/O error). Classified as `storage`: the turn ends at once, saying the
 * message could not be stored; no retry, no fallback model, never blamed on a model provider. The
 * system error is the `cause`.
 */
export class StorageError extends SessionFenceError implements StorageErrorShape {
  readonly [storageMarker] = true;
  readonly keelKind = 'storage' as const;
  readonly reason: StorageFailureReason;
  readonly operation: string;
  readonly sessionId: string | undefined;
  readonly code: string | undefined;

  constructor(options: StorageErrorOptions) {
    const code = options.code === undefined ? '' : ` (${options.code})`;
    const session = options.sessionId === undefined ? '' : ` of session ${options.sessionId}`;
    super({
      message: `The ${options.operation}${session} failed in storage: ${options.reason}${code}`,
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
