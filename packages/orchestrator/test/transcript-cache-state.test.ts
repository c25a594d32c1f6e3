// The transcript cache gives a view back only for the very state it was put with: a state that
// differs in any one of its fields means another writer changed the transcript (or it was
// rewritten), and the turn must read it. `headLength` absent and 0 are the same state.
import type { TranscriptState } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createTranscriptCache, transcriptView } from '../src/transcript-cache';

const base: TranscriptState = {
  exists: true,
  identity: 'inode-1',
  size: 100,
  tailLength: 10,
  tailDigest: 'tail-1',
  headLength: 20,
  headDigest: 'head-1',
};

/** Puts a view with `base`, takes it with `asked`: whether the view came back. */
function takesWith(asked: TranscriptState, put: TranscriptState = base): boolean {
  const cache = createTranscriptCache();
  const view = transcriptView([]);
  cache.put('s1', put, view);
  return cache.take('s1', asked) === view;
}

describe('the transcript cache compares every field of the state', () => {
  it('gives the view back for an equal state (another object)', () => {
    expect(takesWith({ ...base })).toBe(true);
  });

  it.each([
    ['exists', { exists: false }],
    ['identity', { identity: 'inode-2' }],
    ['size', { size: 101 }],
    ['tailLength', { tailLength: 11 }],
    ['tailDigest', { tailDigest: 'tail-2' }],
    ['headLength', { headLength: 21 }],
    ['headDigest', { headDigest: 'head-2' }],
  ] as const)('a state that differs only in %s gets no view', (_field, change) => {
    expect(takesWith({ ...base, ...change })).toBe(false);
  });

  it('an absent headLength and a headLength of 0 are the same state', () => {
    const { headLength: _length, headDigest: _digest, ...noHead } = base;
    expect(takesWith({ ...noHead, headLength: 0 }, noHead)).toBe(true);
    expect(takesWith(noHead, { ...noHead, headLength: 0 })).toBe(true);
    expect(takesWith({ ...noHead, headLength: 1 }, noHead)).toBe(false);
  });

  it('no state (a transcript never seen) gets no view and keeps none', () => {
    const cache = createTranscriptCache();
    const view = transcriptView([]);
    cache.put('s1', base, view);
    expect(cache.take('s1', undefined)).toBeUndefined();
    expect(cache.take('s1', base)).toBeUndefined();
    cache.put('s1', undefined, view);
    expect(cache.bytes).toBe(0);
  });
});
