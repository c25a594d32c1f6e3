import { describe, expect, it } from 'vitest';
import { createCredentialLookup, createTokenCheck } from './check-token';

describe('createCredentialLookup', () => {
  const find = createCredentialLookup([
    { id: 'alpha', secret: 'secret-alpha' },
    { id: 'beta', secret: 'secret-beta' },
  ]);

  it('finds whose secret a Bearer token or an x-api-key is', () => {
    expect(find('Bearer secret-alpha')).toBe('alpha');
    expect(find('bearer   secret-beta')).toBe('beta');
    expect(find(undefined, 'secret-beta')).toBe('beta');
    expect(find('Bearer wrong', 'secret-alpha')).toBe('alpha');
  });

  it('finds nobody for a wrong, partial, empty or repeated credential', () => {
    expect(find(undefined)).toBeUndefined();
    expect(find('Bearer secret-alph')).toBeUndefined();
    expect(find('Bearer secret-alphaa')).toBeUndefined();
    expect(find('secret-alpha')).toBeUndefined();
    expect(find(undefined, '')).toBeUndefined();
    expect(find(undefined, ['secret-alpha', 'secret-alpha'])).toBeUndefined();
  });

  it('keeps the single token check', () => {
    const valid = createTokenCheck('the-token');
    expect(valid('Bearer the-token')).toBe(true);
    expect(valid(undefined, 'the-token')).toBe(true);
    expect(valid('Bearer other', 'other')).toBe(false);
  });
});
