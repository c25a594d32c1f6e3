import { join, sep } from 'node:path';
import { assertValidSessionId } from './session-id';

/**
 * The path of a session's file in `sessionsDir` (`<id><extension>`), as `join` makes it, validated
 * (`InvalidSessionIdError` for a bad id). A session id is one plain path segment, so joining it to
 * the directory only appends it to the directory's normalized form plus a separator: that prefix
 * is worked out once, checked against `join` itself, and each path is then one concatenation
 * instead of a normalization (several per turn). Where the check fails, each path is `join`ed.
 */
export function createSessionPath(
  sessionsDir: string,
): (sessionId: string, extension: string) => string {
  const probe = 'session.jsonl';
  const joined = join(sessionsDir, probe);
  const prefix = joined.slice(0, joined.length - probe.length);
  const appends = prefix + probe === joined && (prefix === '' || prefix.endsWith(sep));
  return (sessionId, extension) => {
    assertValidSessionId(sessionId);
    return appends
      ? `${prefix}${sessionId}${extension}`
      : join(sessionsDir, `${sessionId}${extension}`);
  };
}
