/** Error kinds of the Keel taxonomy that transport errors carry (see `@keel/error-classification`). */
export type TransportErrorKind = 'timeout' | 'connection' | 'caller_abort' | 'invalid_request';

const MARKER = Symbol.for('keel.error.TransportError');

export interface TransportErrorOptions {
  message: string;
  cause?: unknown;
}

/** Base class of every error `@keel/transport` raises itself. */
export class TransportError extends Error {
  readonly [MARKER] = true;

  constructor(options: TransportErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TransportError';
  }

  static isInstance(error: unknown): error is TransportError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}

/** Which of the transport's clocks ran out. */
export type TimeoutKind = 'attempt' | 'first-token' | 'stall';

export interface TransportTimeoutErrorOptions extends TransportErrorOptions {
  timeoutKind: TimeoutKind;
  timeoutMs: number;
}

/** A per-attempt, first-token or stall timeout ran out; the request was aborted. */
export class TransportTimeoutError extends TransportError {
  readonly keelKind = 'timeout' as const;
  readonly timeoutKind: TimeoutKind;
  readonly timeoutMs: number;

  constructor(options: TransportTimeoutErrorOptions) {
    super(options);
    this.name = 'TransportTimeoutError';
    this.timeoutKind = options.timeoutKind;
    this.timeoutMs = options.timeoutMs;
  }
}

/** The caller's `AbortSignal` aborted the call. */
export class TransportAbortError extends TransportError {
  readonly keelKind = 'caller_abort' as const;

  constructor(options: TransportErrorOptions) {
    super(options);
    this.name = 'AbortError';
  }
}

/** The stream ended (or was cut) before its terminal event: never a short success. */
export class IncompleteStreamError extends TransportError {
  readonly keelKind = 'connection' as const;

  constructor(options: TransportErrorOptions) {
    super(options);
    this.name = 'IncompleteStreamError';
  }
}

/** The request cannot be expressed in the target wire format. */
export class UnsupportedRequestError extends TransportError {
  readonly keelKind = 'invalid_request' as const;

  constructor(options: TransportErrorOptions) {
    super(options);
    this.name = 'UnsupportedRequestError';
  }
}

/** The model streamed something the transport cannot turn into events (e.g. tool arguments that are not JSON). */
export class MalformedResponseError extends TransportError {
  constructor(options: TransportErrorOptions) {
    super(options);
    this.name = 'MalformedResponseError';
  }
}

export interface MissingSdkErrorOptions extends TransportErrorOptions {
  packageName: string;
}

/** The optional peer SDK an API needs is not installed (or failed to load). */
export class MissingSdkError extends TransportError {
  readonly packageName: string;

  constructor(options: MissingSdkErrorOptions) {
    super(options);
    this.name = 'MissingSdkError';
    this.packageName = options.packageName;
  }
}
