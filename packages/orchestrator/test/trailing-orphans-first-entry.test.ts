// trailingOrphans (trailing-orphans.ts) reads the transcript back to its very first entry: a
// transcript that is only one assistant message still has that message's unanswered tool calls.
import type { TranscriptEntry } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createEntryFactory } from '../src/entries';
import { trailingOrphans } from '../src/trailing-orphans';

const factory = createEntryFactory(
  () => 'id',
  () => 0,
);

describe('trailingOrphans', () => {
  it('finds the tool calls of an assistant message that is the first entry', () => {
    const entries: TranscriptEntry[] = [
      factory.message({
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call-1', name: 'lookup', input: {} },
          { type: 'tool_use', id: 'call-2', name: 'lookup', input: {} },
        ],
      }),
    ];
    expect(trailingOrphans(entries)).toEqual(['call-1', 'call-2']);
  });

  it('leaves out a call the entry after the first answers', () => {
    const entries: TranscriptEntry[] = [
      factory.message({
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call-1', name: 'lookup', input: {} },
          { type: 'tool_use', id: 'call-2', name: 'lookup', input: {} },
        ],
      }),
      factory.message({
        role: 'user',
        content: [{ type: 'tool_result', toolUseId: 'call-1', content: 'done' }],
      }),
    ];
    expect(trailingOrphans(entries)).toEqual(['call-2']);
  });
});
