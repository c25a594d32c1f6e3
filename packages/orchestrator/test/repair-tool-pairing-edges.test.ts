// repairToolPairing's less travelled paths: the text of a made-up result, a stray result inside a
// message that also says something (the words stay, the result goes), a second result for the same
// call and a result for a call never made (both dropped and reported), the rest of a tool message
// after its results moved (sent as the user's, since a `tool` message holds only results), and a
// `tool_use` block outside an assistant message (not a call: nothing is made up for it).
import type { Message } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { repairToolPairing } from '../src/repair-tool-pairing';

const use = (id: string): Message => ({
  role: 'assistant',
  content: [{ type: 'tool_use', id, name: 'lookup', input: {} }],
});

describe('repairToolPairing', () => {
  it('a made-up result tells the model the call was interrupted and may have run', () => {
    const repair = repairToolPairing([use('a')]);
    expect(repair.addedResults).toEqual(['a']);
    const [, made] = repair.messages;
    expect(made?.role).toBe('tool');
    const block = Array.isArray(made?.content) ? made.content[0] : undefined;
    expect(block).toMatchObject({ type: 'tool_result', toolUseId: 'a', isError: true });
    const text = block?.type === 'tool_result' ? block.content : undefined;
    expect(text).toMatch(/interrupted/);
    expect(text).toMatch(/may or may not have run/);
  });

  it('a stray result in a user message that also has text: the text stays, the result goes', () => {
    const repair = repairToolPairing([
      { role: 'assistant', content: 'hello' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'and also' },
          { type: 'tool_result', toolUseId: 'ghost', content: 'late' },
        ],
      },
    ]);
    expect(repair.messages).toEqual([
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: [{ type: 'text', text: 'and also' }] },
    ]);
    expect(repair.droppedResults).toEqual(['ghost']);
  });

  it('a second result for a call and a result for no call: the first kept, both others dropped', () => {
    const repair = repairToolPairing([
      use('a'),
      {
        role: 'tool',
        content: [
          { type: 'tool_result', toolUseId: 'a', content: 'first' },
          { type: 'tool_result', toolUseId: 'a', content: 'second' },
          { type: 'tool_result', toolUseId: 'b', content: 'stray' },
        ],
      },
    ]);
    expect(repair.messages).toEqual([
      use('a'),
      { role: 'tool', content: [{ type: 'tool_result', toolUseId: 'a', content: 'first' }] },
    ]);
    expect(repair.droppedResults).toEqual(['a', 'b']);
    expect(repair.addedResults).toEqual([]);
  });

  it('what a tool message holds besides its results follows them as a user message', () => {
    const repair = repairToolPairing([
      use('a'),
      {
        role: 'tool',
        content: [
          { type: 'tool_result', toolUseId: 'a', content: 'found' },
          { type: 'text', text: 'a note' },
        ],
      },
    ]);
    expect(repair.messages).toEqual([
      use('a'),
      { role: 'tool', content: [{ type: 'tool_result', toolUseId: 'a', content: 'found' }] },
      { role: 'user', content: [{ type: 'text', text: 'a note' }] },
    ]);
  });

  it('a tool_use block in a user message is no call: no result is made up for it', () => {
    const odd: Message = {
      role: 'user',
      content: [{ type: 'tool_use', id: 'u', name: 'lookup', input: {} }],
    };
    const repair = repairToolPairing([odd]);
    expect(repair.messages).toEqual([odd]);
    expect(repair.addedResults).toEqual([]);
  });
});
