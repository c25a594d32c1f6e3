import { describe, expect, it } from 'vitest';
import { parseChatRequest } from './chat-request-schema';
import { toModelRequest } from './to-model-request';

function translate(body: Record<string, unknown>) {
  const parsed = parseChatRequest({ model: 'default', ...body });
  if (!parsed.ok) throw new Error(parsed.message);
  return toModelRequest(parsed.body);
}

describe('parseChatRequest', () => {
  it('names the field of the first problem, and refuses n other than 1', () => {
    expect(parseChatRequest({ messages: [] })).toMatchObject({ ok: false, param: 'model' });
    expect(
      parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 3 }] }),
    ).toMatchObject({ ok: false, param: 'messages.0.content' });
    expect(
      parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], n: 2 }),
    ).toMatchObject({ ok: false, param: 'n' });
    expect(
      parseChatRequest({ model: 'm', messages: [{ role: 'assistant', content: null }] }),
    ).toMatchObject({ ok: false, param: 'messages.0' });
    expect(
      parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], n: 1, seed: 4 }),
    ).toMatchObject({ ok: true });
  });
});

describe('toModelRequest', () => {
  it('hoists system and developer text, keeps tool ids both ways, merges consecutive tool results', () => {
    const result = translate({
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'developer', content: [{ type: 'text', text: 'and kind' }] },
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'w', arguments: '{"c":"Oslo"}' } },
            { id: 'call_2', type: 'function', function: { name: 'w', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'rain' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: 'sun' }] },
      ],
    });
    expect(result).toEqual({
      ok: true,
      request: {
        system: 'be brief\n\nand kind',
        messages: [
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'call_1', name: 'w', input: { c: 'Oslo' } },
              { type: 'tool_use', id: 'call_2', name: 'w', input: {} },
            ],
          },
          {
            role: 'tool',
            content: [
              { type: 'tool_result', toolUseId: 'call_1', content: 'rain' },
              { type: 'tool_result', toolUseId: 'call_2', content: 'sun' },
            ],
          },
        ],
      },
    });
  });

  it('maps the sampling, limit, stop, tool and format fields', () => {
    const result = translate({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
      temperature: 0.5,
      top_p: 0.9,
      max_tokens: 10,
      max_completion_tokens: 20,
      stop: 'END',
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'x', schema: { type: 'object' } },
      },
      user: 'someone',
    });
    expect(result).toEqual({
      ok: true,
      request: {
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'f', inputSchema: { type: 'object' } }],
        toolChoice: { type: 'tool', name: 'f' },
        temperature: 0.5,
        topP: 0.9,
        maxTokens: 20,
        stop: ['END'],
        responseFormat: { type: 'json_schema', name: 'x', schema: { type: 'object' } },
      },
    });
  });

  it('refuses tool arguments that are not a JSON object, and a conversation of system text only', () => {
    const call = { id: 'c', type: 'function', function: { name: 'f', arguments: '[1]' } };
    expect(
      translate({ messages: [{ role: 'assistant', content: null, tool_calls: [call] }] }),
    ).toMatchObject({ ok: false, param: 'messages.0.tool_calls.0.function.arguments' });
    expect(translate({ messages: [{ role: 'system', content: 's' }] })).toMatchObject({
      ok: false,
      param: 'messages',
    });
  });
});
