import { describe, expect, it } from 'vitest';
import { redactSecret } from './redact-secret';

const SECRET = 'sk-abcdef123456';

describe('redactSecret', () => {
  it('removes the secret from message, stack, own fields and causes, keeping the class', () => {
    const cause = new Error(`inner ${SECRET}`);
    const error = Object.assign(new TypeError(`outer ${SECRET}`, { cause }), {
      apiMessage: `key ${SECRET}`,
      error: { error: { message: `body ${SECRET}` } },
      status: 401,
    });
    const result = redactSecret(error, SECRET);
    expect(result).toBe(error);
    expect(result).toBeInstanceOf(TypeError);
    expect(error.message).toBe('outer [redacted]');
    expect(error.stack).not.toContain(SECRET);
    expect(error.apiMessage).toBe('key [redacted]');
    expect(error.error).toEqual({ error: { message: 'body [redacted]' } });
    expect(error.status).toBe(401);
    expect(cause.message).toBe('inner [redacted]');
  });

  it('leaves errors alone without a secret', () => {
    const error = new Error('nothing to hide');
    expect(redactSecret(error, undefined).message).toBe('nothing to hide');
    expect(redactSecret('plain', SECRET)).toBe('plain');
  });
});
