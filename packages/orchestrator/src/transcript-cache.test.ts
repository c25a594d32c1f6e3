import type { TranscriptEntry, TranscriptState } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createTranscriptCache, transcriptView } from './transcript-cache';

const at = '2026-12-01T00:00:00.000Z';
function messages(count: number, from = 0): TranscriptEntry[] {
  return Array.from({ length: count }, (_, index) => ({
    type: 'message',
    id: `m${from + index}`,
    messageId: `m${from + index}`,
    timestamp: at,
    role: 'user',
    content: [{ type: 'text', text: `message ${from + index}` }],
  }));
}
/** Its JSON's characters: what the cache counted before it weighed the heap. */
const jsonLength = (entries: readonly TranscriptEntry[]) =>
  entries.reduce((sum, entry) => sum + JSON.stringify(entry).length, 0);
/** The heap the cache should count for a view of these entries (written out, not imported). */
const weight = (entries: readonly TranscriptEntry[]) =>
  entries.reduce((sum, entry) => {
    const json = JSON.stringify(entry);
    return sum + Math.ceil(json.length * (/[\u0100-\uffff]/.test(json) ? 2 : 1.25));
  }, 2048);
function state(size: number): TranscriptState {
  return { exists: true, identity: 'file', size, tailLength: 10, tailDigest: `d${size}` };
}

describe('createTranscriptCache', () => {
  it('keeps a long transcript: a turn at 20 000 entries skips the read like one at 100', () => {
    const cache = createTranscriptCache();
    const view = transcriptView(messages(20_000));
    cache.put('long', state(1), view);
    expect(cache.take('long', state(1))).toBe(view);
  });

  it('gives a view only for the state it was put with, and only once', () => {
    const cache = createTranscriptCache();
    const view = transcriptView(messages(3));
    cache.put('s', state(1), view);
    expect(cache.take('s', state(2))).toBeUndefined();
    cache.put('s', state(1), view);
    expect(cache.take('s', state(1))).toBe(view);
    expect(cache.take('s', state(1))).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });

  it('weighs only the entries a turn added, and holds the exact weight', () => {
    const cache = createTranscriptCache();
    const view = transcriptView(messages(50));
    cache.put('s', state(1), view);
    expect(cache.bytes).toBe(weight(view.entries));
    const taken = cache.take('s', state(1));
    taken?.entries.push(...messages(4, 50));
    cache.put('s', state(2), view);
    expect(cache.bytes).toBe(weight(view.entries));
  });

  it('weighs each entry once, however many turns take and put the view back', () => {
    const cache = createTranscriptCache();
    let weighed = 0;
    const toJSON = () => {
      weighed += 1;
      return { id: 'm0' };
    };
    const first = { ...messages(1)[0], toJSON };
    const view = transcriptView([first as unknown as TranscriptEntry]);
    cache.put('s', state(1), view);
    for (let turn = 2; turn < 5; turn += 1) {
      cache.take('s', state(turn - 1))?.entries.push(...messages(2, turn * 2));
      cache.put('s', state(turn), view);
    }
    expect(weighed).toBe(1);
    expect(cache.take('s', state(4))).toBe(view);
  });

  it('weighs entries just read by the text they were parsed from, serializing none of them', () => {
    const cache = createTranscriptCache();
    const toJSON = () => {
      throw new Error('an entry just read was serialized again');
    };
    const read = messages(30).map((entry) => ({ ...entry, toJSON }) as unknown as TranscriptEntry);
    const view = transcriptView(read, { chars: 4000, wide: false });
    cache.put('s', state(1), view);
    expect(cache.bytes).toBe(2048 + 4000 * 1.25);
    // A turn's own entries are weighed as they come; the read ones still are not.
    cache.take('s', state(1))?.entries.push(...messages(2, 30));
    cache.put('s', state(2), view);
    expect(cache.bytes).toBe(2048 + 4000 * 1.25 + weight(messages(2, 30)) - 2048);
  });

  it('weighs text just read with a character past U+00FF at two bytes a character', () => {
    const cache = createTranscriptCache();
    cache.put('s', state(1), transcriptView(messages(3), { chars: 1001, wide: true }));
    expect(cache.bytes).toBe(2048 + 2002);
  });

  it('does not keep a view just read whose text weighs more than the whole bound', () => {
    const cache = createTranscriptCache({ maxBytes: 2048 + 1250 });
    cache.put('fits', state(1), transcriptView(messages(1), { chars: 1000, wide: false }));
    expect(cache.take('fits', state(1))).toBeDefined();
    cache.put('over', state(1), transcriptView(messages(1), { chars: 1001, wide: false }));
    expect(cache.take('over', state(1))).toBeUndefined();
  });

  it('weighs a view anew when it shrank while taken (a rewritten transcript)', () => {
    const cache = createTranscriptCache();
    const view = transcriptView(messages(20));
    cache.put('s', state(1), view);
    cache.take('s', state(1));
    view.entries.splice(0, 15);
    cache.put('s', state(2), view);
    expect(cache.bytes).toBe(weight(view.entries));
  });

  it('forgets the least recently used sessions past its byte bound', () => {
    const one = weight(messages(10));
    const cache = createTranscriptCache({ maxBytes: one * 3 });
    for (const id of ['a', 'b', 'c']) cache.put(id, state(1), transcriptView(messages(10)));
    // `a` is used again, so `b` is now the least recently used.
    const a = cache.take('a', state(1));
    if (a === undefined) throw new Error('a was not kept');
    cache.put('a', state(1), a);
    cache.put('d', state(1), transcriptView(messages(10)));
    expect(cache.bytes).toBeLessThanOrEqual(one * 3);
    expect(cache.take('b', state(1))).toBeUndefined();
    for (const id of ['a', 'c', 'd']) expect(cache.take(id, state(1))).toBeDefined();
  });

  it("counts each session's own heap and its entries' heap, not their JSON characters", () => {
    const cache = createTranscriptCache();
    cache.put('empty', state(1), transcriptView([]));
    expect(cache.bytes).toBe(2048);
    const entries = messages(10);
    cache.put('s', state(1), transcriptView(entries));
    expect(cache.bytes).toBe(2048 + weight(entries));
    expect(weight(entries)).toBeGreaterThan(2048 + jsonLength(entries) * 1.24);
  });

  it('counts an entry with text past U+00FF at two bytes a character (V8 keeps it two-byte)', () => {
    const cache = createTranscriptCache();
    const [plain] = messages(1);
    if (plain === undefined) throw new Error('no entry');
    const wide = { ...plain, content: [{ type: 'text' as const, text: 'メッセージ 0' }] };
    cache.put('s', state(1), transcriptView([wide]));
    expect(cache.bytes).toBe(2048 + 2 * JSON.stringify(wide).length);
  });

  it('does not keep a transcript whose JSON fits the bound but whose heap does not', () => {
    const entries = messages(10);
    const cache = createTranscriptCache({ maxBytes: jsonLength(entries) + 2048 + 100 });
    cache.put('small', state(1), transcriptView(messages(1)));
    cache.put('big', state(1), transcriptView(entries));
    expect(cache.take('big', state(1))).toBeUndefined();
    expect(cache.take('small', state(1))).toBeDefined();
  });

  it('does not keep a transcript heavier than the whole bound, nor evict others for it', () => {
    const cache = createTranscriptCache({ maxBytes: weight(messages(10)) });
    cache.put('small', state(1), transcriptView(messages(5)));
    cache.put('huge', state(1), transcriptView(messages(11)));
    expect(cache.take('huge', state(1))).toBeUndefined();
    expect(cache.take('small', state(1))).toBeDefined();
  });

  it('keeps at most `sessions` sessions', () => {
    const cache = createTranscriptCache({ sessions: 2 });
    for (const id of ['a', 'b', 'c']) cache.put(id, state(1), transcriptView(messages(1)));
    expect(cache.take('a', state(1))).toBeUndefined();
    expect(cache.take('b', state(1))).toBeDefined();
    expect(cache.take('c', state(1))).toBeDefined();
  });
});
