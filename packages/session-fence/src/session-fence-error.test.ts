import { describe, expect, it } from 'vitest';
import {
  InvalidSessionIdError,
  SessionFenceError,
  SessionLockTimeoutError,
  SessionTakeoverError,
  UnsafeTranscriptPathError,
} from './session-fence-error';

describe('session-fence errors', () => {
  it('carry keelKind and their data, and are recognised by marker, not by instanceof', () => {
    const takeover = new SessionTakeoverError({
      sessionId: 's',
      phase: 'write',
      change: 'appended',
    });
    expect(takeover).toMatchObject({
      keelKind: 'session_takeover',
      phase: 'write',
      change: 'appended',
      name: 'SessionTakeoverError',
    });
    const timeout = new SessionLockTimeoutError({
      lockPath: '/x.lock',
      timeoutMs: 5,
      owner: { pid: 1, host: 'h' },
    });
    expect(timeout).toMatchObject({ keelKind: 'coordination', lockPath: '/x.lock' });
    expect(timeout.message).toContain('pid 1 on h');

    for (const error of [
      takeover,
      timeout,
      new InvalidSessionIdError({ sessionId: '../x' }),
      new UnsafeTranscriptPathError({ path: '/p', reason: 'symlink' }),
    ]) {
      expect(SessionFenceError.isInstance(error)).toBe(true);
    }
    expect(SessionTakeoverError.isInstance(timeout)).toBe(false);
    expect(SessionLockTimeoutError.isInstance(takeover)).toBe(false);
    expect(SessionFenceError.isInstance(new Error('plain'))).toBe(false);
    expect(SessionFenceError.isInstance(undefined)).toBe(false);

    // A copy of this package loaded twice marks its errors with the same global symbols.
    const fromOtherCopy = Object.assign(new Error('x'), {
      [Symbol.for('keel.error.SessionFenceError')]: true,
      [Symbol.for('keel.error.SessionTakeoverError')]: true,
    });
    expect(SessionTakeoverError.isInstance(fromOtherCopy)).toBe(true);
  });

  it('keeps the cause', () => {
    const cause = new Error('disk');
    expect(
      new SessionTakeoverError({ sessionId: 's', phase: 'cleanup', change: 'missing', cause })
        .cause,
    ).toBe(cause);
  });
});
