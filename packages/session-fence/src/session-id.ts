import { InvalidSessionIdError } from './session-fence-error';

/** Session ids: 1-128 characters, letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function isValidSessionId(sessionId: unknown): sessionId is string {
  return typeof sessionId === 'string' && SESSION_ID_PATTERN.test(sessionId);
}

/** Throws `InvalidSessionIdError` unless `sessionId` matches `SESSION_ID_PATTERN`. */
export function assertValidSessionId(sessionId: unknown): asserts sessionId is string {
  if (!isValidSessionId(sessionId)) throw new InvalidSessionIdError({ sessionId });
}
