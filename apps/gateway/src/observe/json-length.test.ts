import { describe, expect, it } from 'vitest';
import { jsonLength } from './json-length';

const values: Record<string, unknown> = {
  'an empty object': {},
  'an empty array': [],
  'one field': { a: 1 },
  'plain strings': { type: 'turn-start', sessionId: 'openai-3f1c2a9e-1111', messageId: '' },
  'escaped characters': { text: 'say "hi"\\ then\nnew line\ttab \u0001 \u001f' },
  'non-ASCII and emoji': { text: 'Grüße, 東京 🚀', 'clé ü': 'x' },
  'a lone surrogate': { text: 'broken \ud800 pair' },
  'a key that needs escaping': { 'quo"te\n': true },
  numbers: {
    list: [0, -0, 7, 9, 10, 99, 100, 1_764_660_000_123, 999_999_999_999_999, 1e15, 1e21, 2 ** 53],
    more: [-1, -1234, 0.5, 1.25e-7, 2.71, Number.MAX_VALUE, Number.MIN_VALUE],
    odd: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
  },
  booleans: { yes: true, no: false, nothing: null },
  'left out in an object': { gone: undefined, fn: () => 1, sym: Symbol('s'), kept: 1 },
  'null in an array': [undefined, () => 1, Symbol('s'), 1],
  // biome-ignore lint/suspicious/noSparseArray: a hole is written as null
  'a sparse array': [1, , 3],
  'a date (toJSON)': { at: new Date(0) },
  'nested arrays and objects': {
    outcome: {
      kind: 'reply',
      attempts: [
        { providerId: 'mock', usage: { inputTokens: 12, outputTokens: 60 } },
        { providerId: 'b', error: { kind: 'overloaded', status: 529 } },
      ],
    },
  },
  'an inherited field is not its own': Object.assign(Object.create({ inherited: 1 }), { own: 2 }),
  'a top-level string': 'just text',
  'a top-level number': 42,
};

describe('jsonLength', () => {
  it.each(Object.entries(values))('is the length of JSON.stringify for %s', (_name, value) => {
    expect(jsonLength(value)).toBe(JSON.stringify(value).length);
  });

  it('counts nothing for what JSON leaves out at the top level', () => {
    expect(jsonLength(undefined)).toBe(0);
    expect(jsonLength(() => 1)).toBe(0);
  });
});
