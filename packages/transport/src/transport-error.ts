import type { ErrorKind } from '@keel/spec';

/** Error kinds of the Keel taxonomy that transport errors carry (see `@keel/error-classification`). */
export type TransportErrorKind = Extract<
  ErrorKind,
  'timeout' | 'connection' | 'caller_abort' | 'invalid_request' | 'model_not_found' | 'server_error'
>;

/** Whether `error` carries the `Symbol.for('keel.error.<Name>')` marker of one error class. */
export function hasMarker(error: unknown, marker: symbol): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[marker] === true
  );
}

const MARKER = Symbol.for('keel.error.TransportError');

export interface TransportErrorOptions {
  message: string;
  cause?: unknown;
}

/**
 * Base class of every error `@keel/transport` raises itself. Each class has its own
 * `Symbol.for('keel.error.<Name>')` marker, so `X.isInstance(error)` holds for errors of class X
 * and its subclasses only (never a sibling), across copies of the package too.
 */
export class TransportError extends Error {
  readonly [MARKER] = true;

  constructor(options: TransportErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TransportError';
  }

  static isInstance(error: unknown): error is TransportError {
    return hasMarker(error, MARKER);
  }
}

/** Which of the transport's clocks ran out. */
export type TimeoutKind = 'attempt' | 'first-token' | 'stall';

export interface TransportTimeoutErrorOptions extends TransportErrorOptions {
  timeoutKind: TimeoutKind;
  timeoutMs: number;
}

const TIMEOUT_MARKER = Symbol.for('keel.error.TransportTimeoutError');

/** A per-attempt, first-token or stall timeout ran out; the request was aborted. */
export class TransportTimeoutError extends TransportError {
  readonly [TIMEOUT_MARKER] = true;
  readonly keelKind = 'timeout' as const;
  readonly timeoutKind: TimeoutKind;
  readonly timeoutMs: number;

  constructor(options: TransportTimeoutErrorOptions) {
    super(options);
    this.name = 'TransportTimeoutError';
    this.timeoutKind = options.timeoutKind;
    this.timeoutMs = options.timeoutMs;
  }

  static override isInstance(error: unknown): error is TransportTimeoutError {
    return hasMarker(error, TIMEOUT_MARKER);
  }
}

const ABORT_MARKER = Symbol.for('keel.error.TransportAbortError');

/** The caller's `AbortSignal` aborted the call. */
export class TransportAbortError extends TransportError {
  readonly [ABORT_MARKER] = true;
  readonly keelKind = 'caller_abort' as const;

  constructor(options: TransportErrorOptions) {
    super(options);
    this.name = 'AbortError';
  }

  static override isInstance(error: unknown): error is TransportAbortError {
    return hasMarker(error, ABORT_MARKER);
  }
}

const INCOMPLETE_MARKER = Symbol.for('keel.error.IncompleteStreamError');

/** The stream ended (or was cut) before its terminal event: never a short success. */
export class IncompleteStreamError extends TransportError {
  readonly [INCOMPLETE_MARKER] = true;
  readonly keelKind = 'connection' as const;

  constructor(options: TransportErrorOptions) {
    super(options);
    this.name = 'IncompleteStreamError';
  }

  static override isInstance(error: unknown): error is IncompleteStreamError {
    return hasMarker(error, INCOMPLETE_MARKER);
  }
}

const UNSUPPORTED_MARKER = Symbol.for('keel.error.UnsupportedRequestError');

/** The request cannot be expressed in the target wire format. */
export class UnsupportedRequestError extends TransportError {
  readonly [UNSUPPORTED_MARKER] = true;
  readonly keelKind = 'invalid_request' as const;

  constructor(options: TransportErrorOptions) {
    super(options);
    this.name = 'UnsupportedRequestError';
  }

  static override isInstance(error: unknown): error is UnsupportedRequestError {
    return hasMarker(error, UNSUPPORTED_MARKER);
  }
}

const MALFORMED_MARKER = Symbol.for('keel.error.MalformedResponseError');

/**
 * The model streamed something the transport cannot turn into events: tool arguments that are
 * not a JSON object, a tool call without an id or index. Kind `server_error`: the provider
 * answered but broke its own wire contract, a fault on its side like a 5xx; the same reaction
 * fits (the whole attempt once more — sampling differs — then another model).
 */
export class MalformedResponseError extends TransportError {
  readonly [MALFORMED_MARKER] = true;
  readonly keelKind = 'server_error' as const;

  constructor(options: TransportErrorOptions) {
    super(options);
    this.name = 'MalformedResponseError';
  }

  static override isInstance(error: unknown): error is MalformedResponseError {
    return hasMarker(error, MALFORMED_MARKER);
  }
}

export interface MissingSdkErrorOptions extends TransportErrorOptions {
  packageName: string;
}

const MISSING_SDK_MARKER = Symbol.for('keel.error.MissingSdkError');

/**
 * The optional peer SDK an API needs is not installed (or failed to load). Kind
 * `model_not_found`: this model cannot be reached from this process, so trying it again fails
 * the same way (not retryable), while the next model of a fallback chain, on an API whose SDK is
 * installed, can answer — the reaction that kind prescribes. Nothing was sent.
 */
export class MissingSdkError extends TransportError {
  readonly [MISSING_SDK_MARKER] = true;
  readonly keelKind = 'model_not_found' as const;
  readonly packageName: string;

  constructor(options: MissingSdkErrorOptions) {
    super(options);
    this.name = 'MissingSdkError';
    this.packageName = options.packageName;
  }

  static override isInstance(error: unknown): error is MissingSdkError {
    return hasMarker(error, MISSING_SDK_MARKER);
  }
}
