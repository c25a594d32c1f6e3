// When a message folded into a running turn (`steer`) is shown (build-context.ts): it waits until
// the tool results pending when it arrived are shown, whichever role carries them, and no longer
// than the next message that is not a tool result: an assistant reply, even an empty one or one
// that mixes a tool result with text, comes after it.
import type { ContentBlock, Role } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { buildModelContext } from '../src/build-context';
import { lines, transcript } from './transcript-builder';

const folded = { folded: new Set(['m2']) };

/** A turn that called tool u1, m2 folded in while the call ran, then the message given. */
function steeredBefore(role: Role, content: ContentBlock[]) {
  return transcript()
    .user('first', 'm1')
    .start('t1', 'm1')
    .toolUse('u1')
    .user('also this', 'm2')
    .message(role, content);
}

describe('a steered message and the message after it', () => {
  it('waits for tool results a user-role message carries (as some providers write them)', () => {
    const t = steeredBefore('user', [{ type: 'tool_result', toolUseId: 'u1', content: 'ok' }]);
    expect(lines(buildModelContext(t.entries, folded).messages)).toEqual([
      'user: first',
      'assistant: use:u1',
      'user: result:u1',
      'user: also this',
    ]);
  });

  it('waits for a tool-role message even when it carries more than tool results', () => {
    const t = steeredBefore('tool', [
      { type: 'tool_result', toolUseId: 'u1', content: 'ok' },
      { type: 'text', text: 'note' },
    ]);
    expect(lines(buildModelContext(t.entries, folded).messages)).toEqual([
      'user: first',
      'assistant: use:u1',
      'tool: result:u1 note',
      'user: also this',
    ]);
  });

  it('comes before an empty assistant message', () => {
    const t = steeredBefore('assistant', []);
    expect(lines(buildModelContext(t.entries, folded).messages)).toEqual([
      'user: first',
      'assistant: use:u1',
      'user: also this',
      'assistant: ',
    ]);
  });

  it('comes before an assistant message that mixes a tool result with text', () => {
    const t = steeredBefore('assistant', [
      { type: 'tool_result', toolUseId: 'u1', content: 'ok' },
      { type: 'text', text: 'and so' },
    ]);
    expect(lines(buildModelContext(t.entries, folded).messages)).toEqual([
      'user: first',
      'assistant: use:u1',
      'user: also this',
      'assistant: result:u1 and so',
    ]);
  });
});
