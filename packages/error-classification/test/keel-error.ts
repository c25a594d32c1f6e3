import type { ErrorKind } from '@keel/spec';

export interface KeelErrorOptions {
  name: string;
  keelKind: ErrorKind | (string & {});
  message: string;
  cause?: unknown;
}

/**
 * An error shaped like the ones Keel packages raise (session-fence, transport, compaction): an
 * `Error` subclass with its own `Symbol.for('keel.error.<Name>')` marker set to `true`, and a
 * `keelKind`. This package cannot import those packages (they depend on it), so tests build
 * the same shape here; each package's own tests classify its real classes.
 */
export function keelError(options: KeelErrorOptions): Error & { keelKind: string } {
  const marker = Symbol.for(`keel.error.${options.name}`);
  class KeelTestError extends Error {
    readonly [marker] = true;
    readonly keelKind = options.keelKind;
  }
  const error = new KeelTestError(
    options.message,
    options.cause === undefined ? undefined : { cause: options.cause },
  );
  error.name = options.name;
  return error;
}
