/**
 * A model's stream ended without its `finish` part: the answer is cut, however cleanly the
 * socket closed. Carries the `connection` kind (a cut transfer), trusted by the classifier
 * through its Keel marker, so the cut attempt is retried or fallen over like a reset.
 */
import type { ErrorKind } from '@keel/spec';

const MARKER = Symbol.for('keel.error.IncompleteStreamError');

export class IncompleteStreamError extends Error {
  readonly [MARKER] = true;
  readonly keelKind: ErrorKind = 'connection';

  constructor(options: { message: string }) {
    super(options.message);
    this.name = 'IncompleteStreamError';
  }

  static isInstance(error: unknown): error is IncompleteStreamError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as Record<symbol, unknown>)[MARKER] === true
    );
  }
}
