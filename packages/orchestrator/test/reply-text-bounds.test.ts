// replyTextOf reads back only as far as its own turn's start, and only that turn's assistant text:
// a message of another turn (even after another turn's start), a user message the turn answered,
// and anything before the turn's own start stay out.
import type { TranscriptEntry } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { replyTextOf } from '../src/reply-text';

const at = new Date(0).toISOString();
let next = 0;
function message(role: 'user' | 'assistant', turnId: string, text: string): TranscriptEntry {
  next += 1;
  const id = `m${next}`;
  return {
    type: 'message',
    id,
    timestamp: at,
    messageId: id,
    turnId,
    role,
    content: [{ type: 'text', text }],
  };
}
function start(turnId: string): TranscriptEntry {
  next += 1;
  return { type: 'turn', id: `t${next}`, timestamp: at, turnId, phase: 'start' };
}

describe('replyTextOf', () => {
  it('stops at its own turn start: an earlier message with the same turn id is not read', () => {
    const entries = [
      message('assistant', 't1', 'before'),
      start('t1'),
      message('assistant', 't1', 'after'),
    ];
    expect(replyTextOf(entries, 't1')).toBe('after');
  });

  it('reads past another turn’s start', () => {
    const entries = [
      start('t1'),
      message('assistant', 't1', 'first'),
      start('t2'),
      message('assistant', 't1', 'second'),
    ];
    expect(replyTextOf(entries, 't1')).toBe('first\n\nsecond');
  });

  it('leaves out the user message the turn answered', () => {
    const entries = [
      start('t1'),
      message('user', 't1', 'question'),
      message('assistant', 't1', 'answer'),
    ];
    expect(replyTextOf(entries, 't1')).toBe('answer');
  });

  it('leaves out another turn’s assistant message', () => {
    const entries = [
      start('t1'),
      message('assistant', 't2', 'other'),
      message('assistant', 't1', 'mine'),
    ];
    expect(replyTextOf(entries, 't1')).toBe('mine');
  });
});
