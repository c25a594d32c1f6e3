const MARKER = Symbol.for('keel.error.HealthConfigError');

export interface HealthConfigErrorOptions {
  message: string;
  /** The option that cannot work (`failureRatio`, `windowMs`, …). */
  path: string;
  cause?: unknown;
}

/**
 * Provider-health options that cannot work, named by `path`; raised when a health is made, before
 * any request. Use `isInstance`, not `instanceof` (two copies of the package may be installed).
 */
export class HealthConfigError extends Error {
  readonly [MARKER] = true;
  override readonly name: string = 'HealthConfigError';
  readonly keelKind = 'invalid_request' as const;
  readonly path: string;

  constructor(options: HealthConfigErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.path = options.path;
  }

  static isInstance(error: unknown): error is HealthConfigError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
