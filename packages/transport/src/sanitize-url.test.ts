import { describe, expect, it } from 'vitest';
import { sanitizeUrl } from './sanitize-url';

describe('sanitizeUrl', () => {
  it('drops credentials, query string and fragment', () => {
    expect(sanitizeUrl('https://user:pass@example.com:8443/v1/?key=secret#frag')).toBe(
      'https://example.com:8443/v1',
    );
  });

  it('keeps a plain base URL and marks an invalid one', () => {
    expect(sanitizeUrl('http://127.0.0.1:11434/v1')).toBe('http://127.0.0.1:11434/v1');
    expect(sanitizeUrl('not a url')).toBe('[invalid url]');
  });
});
