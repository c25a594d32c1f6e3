// The transcript cache's two edges: a view put back exactly as it was taken (a turn answered from
// storage appends nothing, run-turn.ts puts the view back at once) keeps its weighing instead of
// weighing every entry again, and a transcript that weighs exactly the byte bound is kept (the
// bound is "at most", as the eviction loop reads it).
import type { TranscriptEntry, TranscriptState } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import {
  createTranscriptCache,
  entryHeapBytes,
  HEAP_PER_SESSION,
  transcriptView,
} from '../src/transcript-cache';

const at = '2026-12-01T00:00:00.000Z';
function message(index: number): TranscriptEntry {
  return {
    type: 'message',
    id: `m${index}`,
    messageId: `m${index}`,
    timestamp: at,
    role: 'user',
    content: [{ type: 'text', text: `message ${index}` }],
  };
}
function state(size: number): TranscriptState {
  return { exists: true, identity: 'file', size, tailLength: 10, tailDigest: `d${size}` };
}

describe('createTranscriptCache', () => {
  it('a view put back unchanged is not weighed again', () => {
    const cache = createTranscriptCache();
    // JSON.stringify calls toJSON once each time the cache weighs this entry.
    let weighed = 0;
    const counted = {
      ...message(0),
      toJSON: () => {
        weighed += 1;
        return { id: 'm0' };
      },
    };
    const view = transcriptView([counted as unknown as TranscriptEntry, message(1)]);
    cache.put('s', state(1), view);
    const bytes = cache.bytes;
    expect(weighed).toBe(1);
    for (let turn = 0; turn < 3; turn += 1) {
      expect(cache.take('s', state(1))).toBe(view);
      cache.put('s', state(1), view);
    }
    expect(weighed).toBe(1);
    expect(cache.bytes).toBe(bytes);
  });

  it('keeps a transcript that weighs exactly the byte bound', () => {
    const entries = [message(0), message(1), message(2)];
    const exact = entries.reduce((sum, entry) => sum + entryHeapBytes(entry), HEAP_PER_SESSION);
    const cache = createTranscriptCache({ maxBytes: exact });
    const view = transcriptView(entries);
    cache.put('s', state(1), view);
    expect(cache.bytes).toBe(exact);
    expect(cache.take('s', state(1))).toBe(view);
  });
});
