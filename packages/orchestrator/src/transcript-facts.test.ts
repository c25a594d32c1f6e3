import type { MessageEntry, TranscriptEntry } from '@keel/spec';
import { seededRandom } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { transcript } from '../test/transcript-builder';
import { createTranscriptFactsIndex, transcriptFacts } from './transcript-facts';

const ids = (messages: readonly MessageEntry[]) => messages.map((message) => message.messageId);

describe('transcriptFacts', () => {
  it('answers a message by its turn end, and by a turn that folded it in', () => {
    const t = transcript()
      .user('one', 'm1')
      .start('t1', 'm1')
      .user('steered', 'm2')
      .assistant('ok')
      .end('t1', 'm1', { steeredMessageIds: ['m2'] })
      .user('queued', 'm3');
    const facts = transcriptFacts(t.entries);
    expect([...facts.answers.keys()]).toEqual(['m1', 'm2']);
    expect(ids(facts.unanswered)).toEqual(['m3']);
  });

  it('counts a legacy message (before any turn) only once a turn names it', () => {
    const legacy = transcript().user('old', 'm1').assistant('old reply').user('older', 'm2');
    expect(ids(transcriptFacts(legacy.entries).unanswered)).toEqual([]);
    legacy.start('t1', 'm2').user('new', 'm3');
    expect(ids(transcriptFacts(legacy.entries).unanswered)).toEqual(['m2', 'm3']);
  });

  it('keeps the last model selection and finds messages by client message id', () => {
    const t = transcript().user('hi', 'm1');
    const message = { ...(t.entries[0] as MessageEntry), clientMessageId: 'c1' };
    const entries: TranscriptEntry[] = [
      message,
      { type: 'model-selection', id: 's1', model: 'a/x', source: 'user', timestamp: 'x' },
      { type: 'model-selection', id: 's2', model: 'b/y', source: 'user', timestamp: 'x' },
    ];
    const facts = transcriptFacts(entries);
    expect(facts.selectedModel).toBe('b/y');
    expect(facts.byClientMessageId.get('c1')?.messageId).toBe('m1');
  });

  it('reads a transcript in any number of steps to the same facts as in one', () => {
    for (let seed = 1; seed <= 200; seed += 1) {
      const random = seededRandom(seed);
      const entries = randomTranscript(random);
      const index = createTranscriptFactsIndex();
      let read = 0;
      let facts = index.advance([]);
      while (read < entries.length) {
        read = Math.min(entries.length, read + 1 + Math.floor(random() * 4));
        facts = index.advance(entries.slice(0, read));
        const expected = reference(entries.slice(0, read));
        expect(ids(facts.unanswered), `seed ${seed} at ${read}`).toEqual(expected.unanswered);
        expect([...facts.answers.keys()].sort()).toEqual(expected.answered);
      }
    }
  });

  it('refuses a transcript shorter than the one it already read', () => {
    const t = transcript().user('hi', 'm1').start('t1', 'm1');
    const index = createTranscriptFactsIndex();
    index.advance(t.entries);
    expect(() => index.advance(t.entries.slice(0, 1))).toThrow(/only grows/);
  });
});

/** A transcript with legacy history, turns, queued and steered messages, tool results. */
function randomTranscript(random: () => number): TranscriptEntry[] {
  const t = transcript();
  let message = 0;
  let turn = 0;
  const open: string[] = [];
  for (let index = 0; index < 5 * Math.floor(1 + random() * 4); index += 1) {
    const roll = random();
    if (roll < 0.3) {
      message += 1;
      t.user(`text ${message}`, `m${message}`);
      open.push(`m${message}`);
    } else if (roll < 0.45 && open.length > 0) {
      turn += 1;
      t.start(`t${turn}`, open[0] as string);
    } else if (roll < 0.65 && open.length > 0) {
      const answered = open.shift() as string;
      const steered = random() < 0.3 && open.length > 0 ? [open.shift() as string] : [];
      t.end(`t${turn}`, answered, steered.length === 0 ? {} : { steeredMessageIds: steered });
    } else if (roll < 0.8) {
      t.toolUse(`u${index}`).toolResult(`u${index}`);
    } else {
      t.assistant('reply');
    }
  }
  return t.entries;
}

/** The rule, read straight off the whole transcript. */
function reference(entries: readonly TranscriptEntry[]) {
  const answered = new Set<string>();
  const named = new Set<string>();
  for (const entry of entries) {
    if (entry.type !== 'turn' || entry.messageId === undefined) continue;
    if (entry.phase === 'start') named.add(entry.messageId);
    if (entry.phase === 'end') {
      answered.add(entry.messageId);
      for (const id of entry.steeredMessageIds ?? []) answered.add(id);
    }
  }
  const firstTurn = entries.findIndex((entry) => entry.type === 'turn');
  const unanswered = entries.flatMap((entry, index) =>
    entry.type === 'message' &&
    entry.role === 'user' &&
    !answered.has(entry.messageId) &&
    ((firstTurn !== -1 && index > firstTurn) || named.has(entry.messageId))
      ? [entry.messageId]
      : [],
  );
  return { unanswered, answered: [...answered].sort() };
}
