/**
 * What went wrong, as the one stable name every retry, rotation and fallback decision is made
 * from (DESIGN.md, "The error taxonomy"). `@keel/error-classification` maps any thrown value to
 * one of these.
 */
export type ErrorKind =
  | 'caller_abort'
  | 'provider_abort'
  | 'connection'
  | 'timeout'
  | 'rate_limit'
  | 'overloaded'
  | 'server_error'
  | 'auth'
  | 'billing'
  | 'context_overflow'
  | 'invalid_request'
  | 'model_not_found'
  | 'content_policy'
  | 'session_takeover'
  | 'coordination'
  | 'storage'
  | 'unknown';

/**
 * The shape of an error that Keel itself raised and that belongs to a taxonomy kind. The
 * classifier trusts `keelKind` only on an `Error` that also carries a
 * `Symbol.for('keel.error.<Name>')` marker set to `true` (every Keel error class has one), so a
 * `keelKind` parsed from a provider's JSON body is never believed. Third parties whose errors
 * should classify the same way set both.
 */
export interface KindedError extends Error {
  readonly keelKind: ErrorKind;
}
