const MARKER = Symbol.for('keel.error.CompactionError');

/** One failed try of one producer, in the order they happened. */
export interface CompactionAttempt {
  /** `builtin:llm`, a provider id, or `hook:beforeCompact`. */
  producerId: string;
  /** 1-based call number within that producer. */
  attempt: number;
  /** Log-safe reason: a validation problem, a provider failure, an error kind's message. */
  reason: string;
  /** `classifyError(error).kind` when the try failed with an error. */
  kind?: string;
}

export type CompactionErrorCode =
  /** Every producer failed or produced an invalid summary; nothing was written. */
  | 'all-producers-failed'
  /** A provider with this id is already registered. */
  | 'duplicate-provider'
  /** The object registered is not a `specificationVersion: 'v1'` provider. */
  | 'invalid-provider';

export interface CompactionErrorOptions {
  message: string;
  code: CompactionErrorCode;
  attempts?: readonly CompactionAttempt[];
  sessionId?: string;
  cause?: unknown;
}

/** Raised when compaction cannot produce a valid summary, or a provider cannot be registered. */
export class CompactionError extends Error {
  readonly [MARKER] = true;
  override readonly name: string = 'CompactionError';
  readonly code: CompactionErrorCode;
  readonly attempts: readonly CompactionAttempt[];
  readonly sessionId: string | undefined;

  constructor(options: CompactionErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.attempts = options.attempts ?? [];
    this.sessionId = options.sessionId;
  }

  /** True for a `CompactionError` from any copy of this package. */
  static isInstance(error: unknown): error is CompactionError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
