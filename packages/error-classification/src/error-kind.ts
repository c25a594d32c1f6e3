import type { ErrorKind } from '@keel/spec';

export type { ErrorKind, KindedError } from '@keel/spec';

/**
 * Every kind of the taxonomy (`ErrorKind` from `@keel/spec`), in the order of DESIGN.md's
 * table: the runtime list behind `isErrorKind`.
 */
export const ERROR_KINDS = [
  'caller_abort',
  'provider_abort',
  'connection',
  'timeout',
  'rate_limit',
  'overloaded',
  'server_error',
  'auth',
  'billing',
  'context_overflow',
  'invalid_request',
  'model_not_found',
  'content_policy',
  'session_takeover',
  'coordination',
  'storage',
  'unknown',
] as const satisfies readonly ErrorKind[];

const KIND_SET: ReadonlySet<string> = new Set(ERROR_KINDS);

/** True when `value` is one of the 17 `ErrorKind` literals. */
export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === 'string' && KIND_SET.has(value);
}
