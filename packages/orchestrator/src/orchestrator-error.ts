const MARKER = Symbol.for('keel.error.OrchestratorError');
const CONFIG_MARKER = Symbol.for('keel.error.OrchestratorConfigError');

export interface OrchestratorErrorOptions {
  message: string;
  cause?: unknown;
}

/** Base class of the errors `@keel/orchestrator` raises. Use `isInstance`, not `instanceof`. */
export class OrchestratorError extends Error {
  readonly [MARKER] = true;
  override readonly name: string = 'OrchestratorError';

  constructor(options: OrchestratorErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
  }

  static isInstance(error: unknown): error is OrchestratorError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}

export interface OrchestratorConfigErrorOptions extends OrchestratorErrorOptions {
  /** Where in the options the problem is (`models`, `providers`, `retry.maxRetries`, …). */
  path: string;
}

/** The orchestrator's options (or a model a caller selected) cannot work. Raised before any turn. */
export class OrchestratorConfigError extends OrchestratorError {
  readonly [CONFIG_MARKER] = true;
  override readonly name: string = 'OrchestratorConfigError';
  readonly keelKind = 'invalid_request' as const;
  readonly path: string;

  constructor(options: OrchestratorConfigErrorOptions) {
    super(options);
    this.path = options.path;
  }

  static override isInstance(error: unknown): error is OrchestratorConfigError {
    return typeof error === 'object' && error !== null && CONFIG_MARKER in error;
  }
}
