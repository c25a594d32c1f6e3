import type { CompactionAttempt } from '@keel/spec';

const MARKER = Symbol.for('keel.error.CompactionError');

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
  /** Every failed try, in the order they happened. */
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
