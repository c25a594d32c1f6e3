// What transcript-facts.ts counts as a pending user message: a user message holding only tool
// results (as older writers stored them) or nothing at all is no input, so no turn is owed for it;
// and a message entry written again after the turn end that answered it (a duplicate write) stays
// answered instead of becoming pending a second time.
import type { MessageEntry } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { isUserInput, transcriptFacts } from '../src/transcript-facts';
import { transcript } from './transcript-builder';

const ids = (messages: readonly MessageEntry[]) => messages.map((message) => message.messageId);

describe('pending user messages', () => {
  it('a user message of tool results only is no input and never pending', () => {
    const t = transcript()
      .user('look it up', 'm1')
      .start('t1', 'm1')
      .toolUse('u1')
      .message('user', [{ type: 'tool_result', toolUseId: 'u1', content: 'found' }], 'm2');
    const [results] = t.entries.slice(-1);
    expect(results?.type === 'message' && isUserInput(results)).toBe(false);
    expect(ids(transcriptFacts(t.entries).unanswered)).toEqual(['m1']);
  });

  it('a user message with no blocks is no input', () => {
    const t = transcript().start('t1', 'm0').message('user', [], 'm1');
    const [empty] = t.entries.slice(-1);
    expect(empty?.type === 'message' && isUserInput(empty)).toBe(false);
    expect(ids(transcriptFacts(t.entries).unanswered)).toEqual([]);
  });

  it('a message written again after the turn end that answered it stays answered', () => {
    const t = transcript()
      .user('hello', 'm1')
      .start('t1', 'm1')
      .assistant('hi')
      .end('t1', 'm1')
      .user('hello', 'm1');
    const facts = transcriptFacts(t.entries);
    expect([...facts.answers.keys()]).toEqual(['m1']);
    expect(ids(facts.unanswered)).toEqual([]);
  });
});
