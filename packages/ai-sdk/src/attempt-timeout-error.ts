/**
 * An attempt missed a deadline of `timeouts` (no first part, a silent stream). Carries the
 * `timeout` kind, trusted by the classifier through its Keel marker: a silent route is not tried
 * again on the same model while another is left.
 */
import type { ErrorKind } from '@keel/spec';

const MARKER = Symbol.for('keel.error.AttemptTimeoutError');

export class AttemptTimeoutError extends Error {
  readonly [MARKER] = true;
  readonly keelKind: ErrorKind = 'timeout';

  constructor(options: { message: string }) {
    super(options.message);
    this.name = 'AttemptTimeoutError';
  }

  static isInstance(error: unknown): error is AttemptTimeoutError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as Record<symbol, unknown>)[MARKER] === true
    );
  }
}
