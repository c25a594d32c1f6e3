// The Messages request's translation to the spec's request: every field, ids kept, and a 400
// naming the field for what cannot be carried.
import { describe, expect, it } from 'vitest';
import { messagesBody, parseOrThrow } from './anthropic-request';
import { estimateInputTokens } from './count-tokens';
import { toModelRequest } from './to-model-request';

const translate = (body: Record<string, unknown>) =>
  toModelRequest(parseOrThrow(messagesBody, { model: 'default', max_tokens: 100, ...body }));

describe('toModelRequest', () => {
  it('carries system, blocks, tool ids, tools, tool_choice and sampling fields', () => {
    const request = translate({
      system: [
        { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Use tools.' },
      ],
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 's' },
            { type: 'text', text: 'Looking.' },
            { type: 'tool_use', id: 'toolu_01', name: 'weather', input: { city: 'Oslo' } },
          ],
        },
        { role: 'system', content: 'Mid-way note.' },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_01',
              content: [
                { type: 'text', text: 'rain' },
                { type: 'text', text: '4 C' },
              ],
              is_error: false,
            },
          ],
        },
      ],
      tools: [{ name: 'weather', description: 'Forecast', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any' },
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ['END'],
      metadata: { user_id: 'u' },
      thinking: { type: 'enabled', budget_tokens: 1024 },
      stream: true,
    });
    expect(request).toEqual({
      system: 'Be brief.\n\nUse tools.\n\nMid-way note.',
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Looking.' },
            { type: 'tool_use', id: 'toolu_01', name: 'weather', input: { city: 'Oslo' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', toolUseId: 'toolu_01', content: 'rain\n4 C', isError: false },
          ],
        },
      ],
      tools: [{ name: 'weather', description: 'Forecast', inputSchema: { type: 'object' } }],
      toolChoice: 'required',
      maxTokens: 100,
      temperature: 0.2,
      topP: 0.9,
      stop: ['END'],
    });
  });

  it('maps every tool_choice', () => {
    const choice = (tool_choice: unknown) =>
      translate({ messages: [{ role: 'user', content: 'hi' }], tool_choice }).toolChoice;
    expect(choice({ type: 'auto' })).toBe('auto');
    expect(choice({ type: 'none' })).toBe('none');
    expect(choice({ type: 'tool', name: 'weather' })).toEqual({ type: 'tool', name: 'weather' });
  });

  it('refuses what it cannot carry, naming the field', () => {
    const refused = (body: Record<string, unknown>) => {
      try {
        translate(body);
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refused({ messages: [] })).toMatch(/^messages: /);
    expect(
      refused({
        messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64' } }] }],
      }),
    ).toBe('messages.0.content.0.type: image blocks are not supported by this gateway');
    expect(
      refused({
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      }),
    ).toMatch(/^tools\.0\.type: server tools/);
    expect(
      refused({
        messages: [
          { role: 'user', content: [{ type: 'tool_use', id: 'x', name: 'n', input: {} }] },
        ],
      }),
    ).toBe('messages.0.content.0.type: a tool_use block belongs in an assistant message');
    expect(
      refused({
        messages: [
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'x', content: [{ type: 'image' }] }],
          },
        ],
      }),
    ).toMatch(/^messages\.0\.content\.0\.content\.0\.type: image content/);
    expect(() =>
      parseOrThrow(messagesBody, { model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    ).toThrow('max_tokens: is required');
    expect(() =>
      parseOrThrow(messagesBody, {
        model: 'm',
        max_tokens: 1,
        messages: [{ role: 'user', content: 'hi' }],
        tool_choice: { type: 'sometimes' },
      }),
    ).toThrow(/^tool_choice/);
  });
});

describe('estimateInputTokens', () => {
  it('counts the system prompt, the blocks and the tools by characters', () => {
    const body = parseOrThrow(messagesBody, {
      model: 'm',
      max_tokens: 1,
      system: 'x'.repeat(400),
      messages: [{ role: 'user', content: 'y'.repeat(400) }],
    });
    expect(estimateInputTokens(body)).toBe(200);
    const withTools = parseOrThrow(messagesBody, {
      ...body,
      tools: [{ name: 't', input_schema: { type: 'object', description: 'z'.repeat(400) } }],
    });
    expect(estimateInputTokens(withTools)).toBeGreaterThan(300);
  });
});
