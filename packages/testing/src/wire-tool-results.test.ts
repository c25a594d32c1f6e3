import { describe, expect, it } from 'vitest';
import { offeredToolNames, trailingToolResults } from './wire-tool-results';

describe('trailingToolResults', () => {
  it('pairs Anthropic tool_result blocks of the last user message with their tool_use', () => {
    const messages = [
      { role: 'user', content: 'time?' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'current_time', input: {} }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: [{ type: 'text', text: 'noon' }],
          },
          { type: 'tool_result', tool_use_id: 'toolu_gone', content: 'x', is_error: true },
        ],
      },
    ];
    expect(trailingToolResults('anthropic-messages', messages)).toEqual([
      { call: { id: 'toolu_1', name: 'current_time', input: {} }, content: 'noon', isError: false },
      { call: { id: 'toolu_gone', name: 'unknown', input: {} }, content: 'x', isError: true },
    ]);
  });

  it('takes only the trailing Chat tool messages and Responses outputs, never older ones', () => {
    const chat = [
      { role: 'user', content: 'roll' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'roll_dice', arguments: '{"sides":6}' } },
          { id: 'c2', type: 'function', function: { name: 'current_time', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '4' },
      { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: 'noon' }] },
    ];
    expect(
      trailingToolResults('openai-chat', chat).map((result) => [result.call, result.content]),
    ).toEqual([
      [{ id: 'c1', name: 'roll_dice', input: { sides: 6 } }, '4'],
      [{ id: 'c2', name: 'current_time', input: {} }, 'noon'],
    ]);
    expect(
      trailingToolResults('openai-chat', [
        ...chat,
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'hi' },
      ]),
    ).toEqual([]);
    const responses = [
      { role: 'user', content: 'roll' },
      { type: 'function_call', call_id: 'r1', name: 'roll_dice', arguments: '{"sides":20}' },
      { type: 'function_call_output', call_id: 'r1', output: '17' },
    ];
    expect(trailingToolResults('openai-responses', responses)).toEqual([
      {
        call: { id: 'r1', name: 'roll_dice', input: { sides: 20 } },
        content: '17',
        isError: false,
      },
    ]);
    expect(
      trailingToolResults('openai-responses', [...responses, { role: 'user', content: 'again' }]),
    ).toEqual([]);
    expect(trailingToolResults('anthropic-messages', 'just text')).toEqual([]);
  });
});

describe('offeredToolNames', () => {
  it('reads function tools in each api shape', () => {
    expect(
      offeredToolNames('anthropic-messages', { tools: [{ name: 'a', input_schema: {} }] }),
    ).toEqual(['a']);
    expect(
      offeredToolNames('openai-chat', { tools: [{ type: 'function', function: { name: 'b' } }] }),
    ).toEqual(['b']);
    expect(
      offeredToolNames('openai-responses', {
        tools: [{ type: 'function', name: 'c' }, { type: 'web_search' }],
      }),
    ).toEqual(['c']);
    expect(offeredToolNames('openai-chat', {})).toEqual([]);
  });
});
