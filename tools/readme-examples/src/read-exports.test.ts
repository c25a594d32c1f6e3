import { describe, expect, it } from 'vitest';
import { readExports } from './read-exports';
import { unmentioned } from './unmentioned';

describe('readExports', () => {
  it('lists the names of export { … } and export type { … } lines, with their module', () => {
    const source = [
      "export { classifyError, isRetryable } from './classify-error';",
      "export type { ErrorKind } from './error-kind';",
      'export { local };',
      "export * from './ignored';",
      'const local = 1;',
    ].join('\n');
    expect(readExports(source)).toEqual([
      { name: 'classifyError', type: false, from: './classify-error' },
      { name: 'isRetryable', type: false, from: './classify-error' },
      { name: 'ErrorKind', type: true, from: './error-kind' },
      { name: 'local', type: false, from: undefined },
    ]);
  });
});

describe('unmentioned', () => {
  it('keeps the names the text does not mention as whole words', () => {
    expect(unmentioned(['greet', 'greeter', 'Ada'], 'greet(Ada)')).toEqual(['greeter']);
  });
});
