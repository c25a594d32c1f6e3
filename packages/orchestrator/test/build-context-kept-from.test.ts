// Where a compaction's kept part begins (build-context.ts): its `firstKeptEntryId` is searched
// outwards from the compaction as far as the transcript reaches on either side, so a kept entry
// at the very start of the transcript is found (the farthest one can be), and an id that names no
// entry keeps from the compaction on.
import { describe, expect, it } from 'vitest';
import { buildModelContext } from '../src/build-context';
import { lines, transcript } from './transcript-builder';

describe('the kept part of a compacted transcript', () => {
  it('begins at the first entry when the compaction, last, kept everything from there', () => {
    const t = transcript()
      .user('first', 'm1')
      .start('t1', 'm1')
      .assistant('reply one')
      .end('t1', 'm1')
      .compaction('S', 'm1');
    expect(lines(buildModelContext(t.entries).messages)).toEqual([
      'user: first',
      'assistant: reply one',
    ]);
  });

  it('an id that names no entry keeps from the compaction on', () => {
    const t = transcript()
      .user('first', 'm1')
      .start('t1', 'm1')
      .assistant('reply one')
      .end('t1', 'm1')
      .compaction('S', 'gone')
      .user('second', 'm2')
      .start('t2', 'm2');
    expect(lines(buildModelContext(t.entries).messages)).toEqual(['user: second']);
  });
});
