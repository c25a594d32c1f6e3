import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error';
import { ERROR_KINDS } from './error-kind';
import { userMessage } from './user-message';

describe('userMessage', () => {
  it('has distinct, non-empty copy for every kind', () => {
    const messages = ERROR_KINDS.map((kind) => userMessage({ kind }));
    for (const message of messages) expect(message.length).toBeGreaterThan(10);
    expect(new Set(messages).size).toBe(ERROR_KINDS.length);
  });

  it('never echoes provider text, even when it carries a secret (CWE-209)', () => {
    const secret = 'sk-ant-api03-SECRETSECRETSECRET';
    const error = {
      status: 401,
      error: { type: 'authentication_error', message: `invalid x-api-key ${secret} for org-123` },
    };
    const classification = classifyError(error);
    expect(classification.message).toContain(secret);
    const text = userMessage(classification);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('org-123');
    expect(text).toBe(userMessage({ kind: 'auth' }));
  });

  it('falls back to the unknown copy for a kind it does not know', () => {
    const forged = { kind: 'not_a_kind' } as unknown as { kind: 'unknown' };
    expect(userMessage(forged)).toBe(userMessage({ kind: 'unknown' }));
  });

  it('gives the unknown copy, a string, for prototype keys', () => {
    for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const forged = { kind: key } as unknown as { kind: 'unknown' };
      expect(userMessage(forged), key).toBe(userMessage({ kind: 'unknown' }));
    }
  });

  it('gives the unknown copy for a classification that is not an object', () => {
    expect(userMessage(null as unknown as { kind: 'unknown' })).toBe(
      userMessage({ kind: 'unknown' }),
    );
  });
});
