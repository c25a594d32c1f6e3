import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTranscriptStore } from '@keel/session-fence';
import type { TranscriptEntry, TranscriptState } from '@keel/spec';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEntryFactory } from './entries';
import { createTranscriptCache, entryHeapBytes, transcriptView } from './transcript-cache';

// A view read from storage is weighed by the text the store parsed it from (`TranscriptRead.text`)
// instead of serializing its entries again: never under what weighing each entry would count
// (whose honesty against V8's heap `transcript-heap.test.ts` checks), and not far over it.

const factory = createEntryFactory(randomUUID, Date.now);
const state: TranscriptState = {
  exists: true,
  identity: 'f',
  size: 1,
  tailLength: 1,
  tailDigest: 'd',
};
/** What the cache counts for a view: weighed from its text, or entry by entry. */
function weighed(entries: TranscriptEntry[], text?: { chars: number; wide: boolean }): number {
  const cache = createTranscriptCache();
  cache.put('s', state, transcriptView(entries, text));
  return cache.bytes;
}
function turn(text: string): TranscriptEntry[] {
  const user = factory.message({ role: 'user', content: [{ type: 'text', text }] });
  const turnId = randomUUID();
  return [
    user,
    factory.turnStart({ turnId, messageId: user.messageId }),
    factory.message({ role: 'assistant', content: [{ type: 'text', text: `re: ${text}` }] }),
  ];
}

let sessionsDir: string;
beforeEach(async () => {
  sessionsDir = await mkdtemp(join(tmpdir(), 'keel-read-weight-'));
});
afterEach(async () => {
  await rm(sessionsDir, { recursive: true, force: true });
});

describe('a view the file store read is weighed by its text', () => {
  it('as weighing each entry counts, up to rounding and a framing character a line', async () => {
    const store = createTranscriptStore({ sessionsDir, fsync: false });
    // One entry an append, and three in one append (a batch: its lines carry framing).
    for (let index = 0; index < 20; index += 1)
      await store.append('s', index % 2 === 0 ? turn(`message ${index}`).slice(0, 1) : turn('x'));
    const read = await store.read('s');
    expect(read.text?.wide).toBe(false);
    const fromText = weighed(read.entries, read.text);
    const entryByEntry = weighed(read.entries);
    // Entry by entry, each entry's count is rounded up on its own: under a byte an entry more.
    expect(fromText).toBeGreaterThanOrEqual(entryByEntry - read.entries.length);
    expect(fromText).toBeLessThanOrEqual(entryByEntry + Math.ceil(read.entries.length * 1.25) + 1);
    await store.close();
  });

  it('never under the entry-by-entry weight, whatever the text (a property)', async () => {
    const store = createTranscriptStore({ sessionsDir, fsync: false });
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
      fc.constantFrom('é', 'Ω', 'メ', '\\u00e9', '"\\', '\u0000', '😀', '\ud800'),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(text, { minLength: 1, maxLength: 4 }), { maxLength: 6 }),
        async (appends) => {
          run += 1;
          const sessionId = `p-${run}`;
          await store.append(sessionId, [
            factory.message({ role: 'user', content: [{ type: 'text', text: 'start' }] }),
          ]);
          for (const texts of appends)
            await store.append(
              sessionId,
              texts.map((one) =>
                factory.message({ role: 'user', content: [{ type: 'text', text: one }] }),
              ),
            );
          const read = await store.read(sessionId);
          expect(read.issues).toEqual([]);
          const fromText = weighed(read.entries, read.text);
          const entryByEntry = weighed(read.entries);
          expect(fromText).toBeGreaterThanOrEqual(entryByEntry - read.entries.length);
          const anyWide = read.entries.some((entry) =>
            /[\u0100-\uffff]/.test(JSON.stringify(entry)),
          );
          if (anyWide) expect(read.text?.wide).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
    await store.close();
  });

  it('at two bytes a character when a line has a character past U+00FF', async () => {
    const store = createTranscriptStore({ sessionsDir, fsync: false });
    for (let index = 0; index < 10; index += 1) await store.append('s', turn(`message ${index}`));
    await store.append('s', turn('メッセージ'));
    const read = await store.read('s');
    expect(read.text?.wide).toBe(true);
    expect(weighed(read.entries, read.text)).toBeGreaterThanOrEqual(
      2048 + read.entries.reduce((sum, entry) => sum + JSON.stringify(entry).length * 2, 0),
    );
    await store.close();
  });

  it('as wide when a line escapes a character (written elsewhere, `\\u` escapes)', async () => {
    const header = { type: 'header', version: 2, sessionId: 's', createdAt: 'x' };
    const [entry] = turn('メッセージ');
    const escaped = JSON.stringify(entry).replace(/[^\x00-\x7f]/g, (character) => {
      return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
    });
    await writeFile(join(sessionsDir, 's.jsonl'), `${JSON.stringify(header)}\n${escaped}\n`);
    const store = createTranscriptStore({ sessionsDir, fsync: false });
    const read = await store.read('s');
    expect(read.entries).toEqual([entry]);
    expect(read.text?.wide).toBe(true);
    expect(weighed(read.entries, read.text)).toBeGreaterThanOrEqual(
      2048 + entryHeapBytes(read.entries[0] as TranscriptEntry),
    );
    await store.close();
  });

  it('entry by entry when the entries were migrated from an older format (no text)', async () => {
    const legacy = { role: 'user', content: 'hello', id: 'm1', timestamp: 'x' };
    await writeFile(join(sessionsDir, 's.jsonl'), `${JSON.stringify(legacy)}\n`);
    const store = createTranscriptStore({ sessionsDir, fsync: false });
    const read = await store.read('s');
    expect(read.entries).toHaveLength(1);
    expect(read.text).toBeUndefined();
    await store.close();
  });
});
