// A view put back in the transcript cache keeps its live part (transcript-cache.ts, `letGo`) and
// is weighed as what it then holds: the live entries, what the facts keep of the entries let go
// (`forget`: unanswered messages, hashes of ids), and the session. Hand-made mutants failing here:
// what the facts keep left unweighed; a view that grew past its weighing and then let entries go
// keeping that weighing;
// the view's `base` left at 0 (the facts then read the live part as if it began the transcript).
import { randomUUID } from 'node:crypto';
import type { CompactionEntry, TranscriptEntry, TranscriptState } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { liveStart } from '../src/build-context';
import { createEntryFactory } from '../src/entries';
import {
  createTranscriptCache,
  entryHeapBytes,
  HEAP_PER_FORGOTTEN_ID,
  HEAP_PER_SESSION,
  transcriptView,
} from '../src/transcript-cache';
import { createTranscriptFactsIndex } from '../src/transcript-facts';

const factory = createEntryFactory(randomUUID, Date.now);
const state: TranscriptState = {
  exists: true,
  identity: 'f',
  size: 1,
  tailLength: 1,
  tailDigest: 'd',
};

/** `turns` answered turns after a message no turn answered, compacted to the last `kept`. */
function compacted(turns: number, kept: number): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [
    factory.message({ role: 'user', content: [{ type: 'text', text: 'never answered' }] }),
  ];
  let keptId = '';
  for (let index = 0; index < turns; index += 1) {
    const turnId = randomUUID();
    const user = factory.message({
      role: 'user',
      content: [{ type: 'text', text: `a long enough message number ${index}` }],
      clientMessageId: `c-${index}`,
    });
    if (index === turns - kept) keptId = user.id;
    entries.push(
      user,
      factory.turnStart({ turnId, messageId: user.messageId }),
      factory.message({ role: 'assistant', content: [{ type: 'text', text: `answer ${index}` }] }),
      factory.turnEnd({
        kind: 'reply',
        text: `answer ${index}`,
        messageId: user.messageId,
        turnId,
        attempts: [],
      }),
    );
  }
  const compaction: CompactionEntry = {
    type: 'compaction',
    id: randomUUID(),
    timestamp: new Date().toISOString(),
    summary: 'summary',
    firstKeptEntryId: keptId,
    provenance: {
      producerId: 'p',
      attempts: 1,
      tokensBefore: 1,
      tokensAfter: 1,
      sourceDigest: 'sha256:0',
    },
  };
  entries.push(compaction);
  return entries;
}

describe('a compacted view in the transcript cache', () => {
  it('keeps its live part, weighed with what its facts hold of the rest', () => {
    const entries = compacted(200, 3);
    const whole = createTranscriptCache();
    whole.put('s', state, transcriptView(entries.slice(0, -1)));
    const cache = createTranscriptCache();
    cache.put('s', state, transcriptView(entries));
    const view = cache.take('s', state);
    const start = liveStart(entries);
    expect(view?.base).toBe(start);
    expect(view?.entries).toEqual(entries.slice(start));

    // What the facts hold of the entries let go: the message no turn answered, whole, and a hash
    // of each client message id and answer let go: 197 (turns 0–196), and 196 answers (the last end
    // before the kept part stays in the live part).
    const facts = createTranscriptFactsIndex();
    facts.advance(entries);
    const { kept, hashes } = facts.forget(entries.slice(0, start));
    expect(kept).toEqual([entries[0]]);
    expect(hashes).toBe(393);
    let live = 0;
    for (const entry of entries.slice(start)) live += entryHeapBytes(entry);
    if (view !== undefined) cache.put('s', state, view);
    const held = entryHeapBytes(entries[0] as TranscriptEntry) + hashes * HEAP_PER_FORGOTTEN_ID;
    expect(cache.bytes).toBe(HEAP_PER_SESSION + held + live);
    // Under a fifth of the uncompacted transcript's weight.
    expect(cache.bytes).toBeLessThan(whole.bytes / 5);
  });

  it('weighs anew a view that let entries go after growing past its weighing', () => {
    const cache = createTranscriptCache();
    cache.put('s', state, transcriptView(compacted(20, 2)));
    const view = cache.take('s', state);
    if (view === undefined) throw new Error('the view was not kept');
    // A turn that grew it by more than it will let go, then compacted.
    const more = compacted(40, 2);
    view.entries.push(...more);
    cache.put('s', state, view);
    let live = 0;
    for (const entry of view.entries) live += entryHeapBytes(entry);
    expect(view.entries.length).toBeLessThan(more.length);
    expect(cache.bytes).toBe(HEAP_PER_SESSION + view.heldBytes + live);
  });

  it("keeps facts that read on from the live part's place", () => {
    const entries = compacted(20, 2);
    const cache = createTranscriptCache();
    cache.put('s', state, transcriptView(entries));
    const view = cache.take('s', state);
    if (view === undefined) throw new Error('the view was not kept');
    const next = factory.message({
      role: 'user',
      content: [{ type: 'text', text: 'new' }],
      clientMessageId: 'c-new',
    });
    view.entries.push(next);
    const facts = view.facts.advance(view.entries, view.base);
    expect(facts.byClientMessageId.get('c-new')).toBe(next);
    expect(facts.byClientMessageId.get('c-0')).toBeUndefined();
    expect(facts.forgotClientMessageId('c-0')).toBe(true);
    expect(facts.forgotClientMessageId('c-new')).toBe(false);
    expect(facts.forgotAnswerTo(entries[1]?.id ?? '')).toBe(true);
    expect(facts.answers.has(entries.at(-5)?.id ?? '')).toBe(true);
  });
});
