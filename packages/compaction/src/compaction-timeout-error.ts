import type { KindedError } from '@keel/spec';

const MARKER = Symbol.for('keel.error.CompactionTimeoutError');

/**
 * Internal: raised when a model call or a provider call exceeds the time compaction gives it.
 * `keelKind: 'timeout'` (with the Keel error marker) makes `classifyError` see a timeout, not a
 * provider-side abort.
 */
export class CompactionTimeoutError extends Error implements KindedError {
  readonly [MARKER] = true;
  override readonly name = 'TimeoutError';
  readonly keelKind = 'timeout' as const;

  /** True for a `CompactionTimeoutError` from any copy of this package. */
  static isInstance(error: unknown): error is CompactionTimeoutError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
