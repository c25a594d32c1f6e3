import { describe, expect, it } from 'vitest';
import { createRedactor } from './create-redactor';

describe('createRedactor', () => {
  it('replaces a long secret wherever it appears, also inside a JSON string', () => {
    const redact = createRedactor(['sk-long-secret"1']);
    expect(redact('key=sk-long-secret"1; xsk-long-secret"1x')).toBe('key=[redacted]; x[redacted]x');
    expect(redact(JSON.stringify({ apiKey: 'sk-long-secret"1' }))).toBe('{"apiKey":"[redacted]"}');
  });

  it('replaces a short secret where it stands alone: in a field, a header, a URL', () => {
    const redact = createRedactor(['k3y', 'ab.c']);
    expect(redact('{"apiKey":"k3y"}')).toBe('{"apiKey":"[redacted]"}');
    expect(redact('Bearer k3y')).toBe('Bearer [redacted]');
    expect(redact('/v1?key=k3y&x=1')).toBe('/v1?key=[redacted]&x=1');
    expect(redact('k3y')).toBe('[redacted]');
    // A regular-expression character in a secret is a literal.
    expect(redact('ab.c abxc')).toBe('[redacted] abxc');
  });

  it('leaves the same letters inside a longer word readable', () => {
    const redact = createRedactor(['k3y']);
    expect(redact('mk3y k3yx k3y9')).toBe('mk3y k3yx k3y9');
  });

  it('ignores an empty secret', () => {
    expect(createRedactor([''])('nothing to hide')).toBe('nothing to hide');
  });
});
