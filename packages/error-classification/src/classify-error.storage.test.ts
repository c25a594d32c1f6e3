import { closeSync, openSync, writeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keelError } from '../test/keel-error';
import { classifyError } from './classify-error';
import { KIND_POLICY } from './kind-policy';
import { userMessage } from './user-message';

/*
 * `storage`: the store failed, not the model. A store's own error (`StorageErrorShape`) decides
 * whatever its cause says; without one, only the codes a local disk alone raises count, so a model
 * provider's refused connection stays `connection`.
 */

/** A real ENOSPC: writing to /dev/full (Linux). */
function writeToFullDevice(): unknown {
  const fd = openSync('/dev/full', 'w');
  try {
    writeSync(fd, 'x');
    return undefined;
  } catch (error) {
    return error;
  } finally {
    closeSync(fd);
  }
}

function storeError(reason: string, cause: unknown) {
  return Object.assign(
    keelError({ name: 'StorageError', keelKind: 'storage', message: 'storage failed' }),
    { reason, operation: 'append', sessionId: 's', cause },
  );
}

describe('storage', () => {
  it('a real ENOSPC from the file system is storage, even unwrapped', () => {
    const error = writeToFullDevice();
    expect(error).toMatchObject({ code: 'ENOSPC' });
    expect(classifyError(error)).toMatchObject({
      kind: 'storage',
      code: 'ENOSPC',
      retryable: false,
    });
  });

  it('EDQUOT and EROFS are storage; EACCES, EMFILE and EPERM alone are not (a socket raises them)', () => {
    const fsError = (code: string) => Object.assign(new Error(`${code}: failed, open`), { code });
    expect(classifyError(fsError('EDQUOT')).kind).toBe('storage');
    expect(classifyError(fsError('EROFS')).kind).toBe('storage');
    for (const code of ['EACCES', 'EMFILE', 'EPERM']) {
      expect(classifyError(fsError(code)).kind, code).not.toBe('storage');
    }
  });

  it("a store's storage error decides over its cause: EACCES, or a database's refused connection", () => {
    const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    expect(classifyError(storeError('permission', denied)).kind).toBe('storage');
    const refused = Object.assign(new Error('connect ECONNREFUSED /tmp/.s.PGSQL.5432'), {
      code: 'ECONNREFUSED',
    });
    expect(classifyError(storeError('unavailable', refused)).kind).toBe('storage');
  });

  it("a model provider's refused connection stays connection", async () => {
    const error = await fetch('http://127.0.0.1:1/v1/messages').catch((caught: unknown) => caught);
    expect(classifyError(error).kind).toBe('connection');
  });

  it("a provider's HTTP error that mentions ENOSPC is the provider's, not storage", () => {
    const body = { status: 500, error: { type: 'api_error', message: 'ENOSPC on our side' } };
    expect(classifyError(body).kind).toBe('server_error');
  });

  it("a provider's HTTP error whose body code is a disk code is the provider's, not storage", () => {
    const full = { status: 507, error: { code: 'ENOSPC', message: 'no space left upstream' } };
    expect(classifyError(full)).toMatchObject({ kind: 'server_error', status: 507 });
    const readOnly = { status: 503, error: { code: 'EROFS', message: 'replica is read-only' } };
    expect(classifyError(readOnly)).toMatchObject({ kind: 'server_error', status: 503 });
  });

  it('ends the turn at once: final, not retried, never uses up a fallback model', () => {
    expect(KIND_POLICY.storage).toEqual({
      retryable: false,
      honorRetryAfter: false,
      actions: ['final'],
      burnsFallback: false,
    });
    expect(userMessage({ kind: 'storage' })).toMatch(/could not be stored/);
    expect(userMessage({ kind: 'storage' })).not.toMatch(/model provider/);
  });
});
