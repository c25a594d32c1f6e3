import type { Message } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { lines } from '../test/transcript-builder';
import { repairToolPairing } from './repair-tool-pairing';

const use = (id: string): Message => ({
  role: 'assistant',
  content: [{ type: 'tool_use', id, name: 'x', input: {} }],
});
const result = (id: string): Message => ({
  role: 'tool',
  content: [{ type: 'tool_result', toolUseId: id, content: 'ok' }],
});

describe('repairToolPairing', () => {
  it('leaves a well-paired conversation alone', () => {
    const messages: Message[] = [
      { role: 'user', content: 'go' },
      use('a'),
      result('a'),
      { role: 'assistant', content: 'done' },
    ];
    const repair = repairToolPairing(messages);
    expect(lines(repair.messages)).toEqual(lines(messages));
    expect(repair).toMatchObject({ addedResults: [], droppedResults: [], reordered: false });
  });

  it('answers a call with no result with an error result, right after it', () => {
    const repair = repairToolPairing([
      { role: 'user', content: 'go' },
      use('a'),
      { role: 'user', content: 'next' },
    ]);
    expect(lines(repair.messages)).toEqual([
      'user: go',
      'assistant: use:a',
      'tool: result:a!',
      'user: next',
    ]);
    expect(repair.addedResults).toEqual(['a']);
  });

  it('drops a result that answers no call right before it', () => {
    const repair = repairToolPairing([
      { role: 'user', content: 'go' },
      result('ghost'),
      { role: 'assistant', content: 'hi' },
    ]);
    expect(lines(repair.messages)).toEqual(['user: go', 'assistant: hi']);
    expect(repair.droppedResults).toEqual(['ghost']);
  });

  it('moves results ahead of a user message that came between a call and its result', () => {
    const repair = repairToolPairing([
      use('a'),
      { role: 'user', content: 'interjection' },
      result('a'),
    ]);
    expect(lines(repair.messages)).toEqual([
      'assistant: use:a',
      'tool: result:a',
      'user: interjection',
    ]);
    expect(repair.reordered).toBe(true);
  });

  it('pairs a reused id with the call right before it only', () => {
    const repair = repairToolPairing([
      use('a'),
      result('a'),
      use('a'),
      { role: 'assistant', content: 'x' },
    ]);
    expect(lines(repair.messages)).toEqual([
      'assistant: use:a',
      'tool: result:a',
      'assistant: use:a',
      'tool: result:a!',
      'assistant: x',
    ]);
  });
});
