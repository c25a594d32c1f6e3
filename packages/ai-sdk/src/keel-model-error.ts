/**
 * The errors `@keel/ai-sdk` raises: a call that found no answer (with every attempt's story) and
 * options that cannot work. Marked with `Symbol.for('keel.error.<Name>')`, so `isInstance` holds
 * across package copies and the classifier trusts the kind they carry.
 */
import type { ErrorKind } from '@keel/spec';
import type { AttemptRecord } from './attempt-record';

const MODEL_MARKER = Symbol.for('keel.error.KeelModelError');
const CONFIG_MARKER = Symbol.for('keel.error.KeelModelConfigError');

export interface KeelModelErrorOptions {
  message: string;
  cause?: unknown;
  kind: ErrorKind;
  attempts: readonly AttemptRecord[];
  /** The shortest wait after which a candidate may answer again, when one is known. */
  retryAfterMs?: number;
}

/**
 * No candidate answered: `kind` is the last failure's, `cause` the last error as the provider
 * raised it. Not an `APICallError`, so the AI SDK's own `maxRetries` does not repeat the whole
 * failover on top of it.
 */
export class KeelModelError extends Error {
  readonly [MODEL_MARKER] = true;
  readonly keelKind: ErrorKind;
  readonly attempts: readonly AttemptRecord[];
  readonly retryAfterMs?: number;

  constructor(options: KeelModelErrorOptions) {
    super(options.message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'KeelModelError';
    this.keelKind = options.kind;
    this.attempts = options.attempts;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  static isInstance(error: unknown): error is KeelModelError {
    return hasMarker(error, MODEL_MARKER);
  }
}

export interface KeelModelConfigErrorOptions {
  message: string;
}

/** `createKeelModel` was given options that cannot work (no candidates, an unknown profile model…). */
export class KeelModelConfigError extends Error {
  readonly [CONFIG_MARKER] = true;

  constructor(options: KeelModelConfigErrorOptions) {
    super(options.message);
    this.name = 'KeelModelConfigError';
  }

  static isInstance(error: unknown): error is KeelModelConfigError {
    return hasMarker(error, CONFIG_MARKER);
  }
}

function hasMarker(error: unknown, marker: symbol): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[marker] === true
  );
}
