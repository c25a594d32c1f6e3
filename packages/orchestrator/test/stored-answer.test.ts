// What a turn looks a repeat up in once its cached transcript let entries go (stored-answer.ts):
// an existing message whose answer was let go is looked up in the whole transcript (read again),
// one the live facts still answer is not; and a stored reply is read from the whole transcript
// unless the live entries hold the answering turn from its start — a turn that compacted halfway
// holds only the end of its reply in the live part. Hand-made mutants failing here: the existing
// message's check dropped; the start check replaced by "some reply text found".
import { randomUUID } from 'node:crypto';
import type { TranscriptEntry, TurnEntry } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createEntryFactory } from '../src/entries';
import type { TurnInput } from '../src/run-turn';
import { entriesWithReply, lookupFacts } from '../src/stored-answer';
import { createTranscriptFactsIndex } from '../src/transcript-facts';
import type { LiveTurn, TurnRuntime } from '../src/turn-runtime';

const factory = createEntryFactory(randomUUID, Date.now);
const signal = new AbortController().signal;

/** A runtime whose storage reads back `whole`, counting the reads. */
function runtimeOver(whole: TranscriptEntry[]): { runtime: TurnRuntime; reads: () => number } {
  let reads = 0;
  const storage = {
    read: async () => {
      reads += 1;
      return { header: undefined, version: 2, entries: whole, issues: [], exists: true };
    },
  };
  return { runtime: { storage } as unknown as TurnRuntime, reads: () => reads };
}

function turnOver(entries: TranscriptEntry[], from: number): LiveTurn {
  return { sessionId: 's', entries, entriesFrom: from } as unknown as LiveTurn;
}

/** A turn (user message, start, assistant texts, end without its text) answering `text`. */
function answered(texts: string[]) {
  const turnId = randomUUID();
  const user = factory.message({ role: 'user', content: [{ type: 'text', text: 'q' }] });
  const replies = texts.map((text) =>
    factory.message({ role: 'assistant', content: [{ type: 'text', text }], turnId }),
  );
  const end = factory.turnEnd(
    { kind: 'reply', text: texts.join('\n\n'), messageId: user.messageId, turnId, attempts: [] },
    { text: false },
  );
  return { user, start: factory.turnStart({ turnId, messageId: user.messageId }), replies, end };
}

describe('a repeat looked up past the live part', () => {
  it('an existing message whose answer was let go is looked up in the whole transcript', async () => {
    const old = answered(['old reply']);
    const recent = answered(['recent reply']);
    const whole = [
      old.user,
      old.start,
      ...old.replies,
      old.end,
      recent.user,
      recent.start,
      ...recent.replies,
      recent.end,
    ];
    const index = createTranscriptFactsIndex();
    index.advance(whole);
    index.forget(whole.slice(0, 4));
    const facts = index.advance(whole.slice(4), 4);
    const { runtime, reads } = runtimeOver(whole);
    const existing = (message: typeof old.user): TurnInput => ({ type: 'existing', message });
    const kept = await lookupFacts(
      runtime,
      turnOver(whole.slice(4), 4),
      existing(recent.user),
      facts,
      signal,
    );
    expect(kept.whole).toBeUndefined();
    expect(reads()).toBe(0);
    const looked = await lookupFacts(
      runtime,
      turnOver(whole.slice(4), 4),
      existing(old.user),
      facts,
      signal,
    );
    expect(looked.whole).toBe(whole);
    expect(looked.facts.answers.get(old.user.messageId)?.turnId).toBe(old.end.turnId);
    expect(reads()).toBe(1);
  });

  it('a reply is read whole unless the live entries hold its turn from the start', async () => {
    const split = answered(['before the compaction', 'after it']);
    const whole: TranscriptEntry[] = [split.user, split.start, ...split.replies, split.end];
    const { runtime, reads } = runtimeOver(whole);
    // Live from the second assistant message on: the turn's start and first text were let go.
    const live = whole.slice(3);
    const entries = await entriesWithReply(
      runtime,
      turnOver(live, 3),
      split.end as TurnEntry,
      undefined,
      signal,
    );
    expect(entries).toBe(whole);
    expect(reads()).toBe(1);
    const fromStart = await entriesWithReply(
      runtime,
      turnOver(whole.slice(1), 1),
      split.end,
      undefined,
      signal,
    );
    expect(fromStart).toEqual(whole.slice(1));
    expect(reads()).toBe(1);
  });
});
