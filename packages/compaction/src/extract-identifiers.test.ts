import { describe, expect, it } from 'vitest';
import { collectIdentifiers, extractIdentifiers } from './extract-identifiers';

describe('extractIdentifiers', () => {
  it('finds paths, URLs and ids verbatim, once each, in order', () => {
    const text =
      'Edit /work/src/app.ts and ./lib/x.js (see https://example.com/a/b?x=1). Called toolu_01ABC, ' +
      'call_mock_1, request 550e8400-e29b-41d4-a716-446655440000 at commit 3f2a9c1d; then /work/src/app.ts again.';
    expect(extractIdentifiers(text)).toEqual([
      '/work/src/app.ts',
      './lib/x.js',
      'https://example.com/a/b?x=1',
      'toolu_01ABC',
      'call_mock_1',
      '550e8400-e29b-41d4-a716-446655440000',
      '3f2a9c1d',
    ]);
  });

  it('ignores plain words, and/or, and hex-looking words without digits', () => {
    expect(extractIdentifiers('He said and/or maybe; deadbeef, max_tokens and 1234567.')).toEqual(
      [],
    );
  });
});

describe('extractIdentifiers: what the heuristic leaves out', () => {
  it('does not take bare file names, Windows paths or plain numbers', () => {
    expect(extractIdentifiers('Edit README.md, then C:\\work\\app.ts, ticket 4711.')).toEqual([]);
  });
});

describe('collectIdentifiers', () => {
  it('keeps the most recently seen ones when over the limit, ordered by last appearance', () => {
    const texts = ['see /a/one.ts and /a/two.ts', 'then /a/three.ts', 'back to /a/one.ts'];
    expect(collectIdentifiers(texts, 10)).toEqual(['/a/two.ts', '/a/three.ts', '/a/one.ts']);
    expect(collectIdentifiers(texts, 2)).toEqual(['/a/three.ts', '/a/one.ts']);
    expect(collectIdentifiers(texts, 0)).toEqual([]);
  });

  it('lists each identifier once across texts', () => {
    expect(collectIdentifiers(['toolu_01A', 'toolu_01A again', 'and toolu_01B'], 64)).toEqual([
      'toolu_01A',
      'toolu_01B',
    ]);
  });
});
