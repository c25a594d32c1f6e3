const MARKER = Symbol.for('keel.error.ConsoleApiError');

/** An answer of the gateway's API that was not a success, with its status and error code. */
export class ConsoleApiError extends Error {
  readonly [MARKER] = true;
  readonly status: number;
  readonly code: string | undefined;

  constructor(options: { message: string; status: number; code?: string }) {
    super(options.message);
    this.name = 'ConsoleApiError';
    this.status = options.status;
    this.code = options.code;
  }

  static isInstance(value: unknown): value is ConsoleApiError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[MARKER] === true
    );
  }
}
