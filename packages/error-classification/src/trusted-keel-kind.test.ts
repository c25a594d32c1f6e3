import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { trustedKeelKind } from './trusted-keel-kind';

const MARKER = Symbol.for('keel.error.StorageError');

describe('trustedKeelKind', () => {
  it('believes an Error from another realm (a vm context, a worker) that carries the marker', () => {
    const error = runInNewContext('new Error("disk full")') as Error;
    expect(error instanceof Error).toBe(false);
    Object.assign(error, { [MARKER]: true, keelKind: 'storage' });
    expect(trustedKeelKind(error)).toBe('storage');
  });

  it('does not believe a plain object with the marker, from any realm', () => {
    const plain = runInNewContext('({ message: "disk full" })') as object;
    Object.assign(plain, { [MARKER]: true, keelKind: 'storage' });
    expect(trustedKeelKind(plain)).toBeUndefined();
    expect(trustedKeelKind({ [MARKER]: true, keelKind: 'storage' })).toBeUndefined();
  });
});
