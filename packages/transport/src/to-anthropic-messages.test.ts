import type { ModelRequest } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { fullRequest } from '../test/full-request';
import { DEFAULT_ANTHROPIC_MAX_TOKENS, toAnthropicMessages } from './to-anthropic-messages';
import { UnsupportedRequestError } from './transport-error';

/** The shared request with the sampling fields and the one format Messages can honour. */
const everyField: ModelRequest = {
  ...fullRequest,
  topP: 0.9,
  toolChoice: { type: 'tool', name: 'weather' },
  responseFormat: { type: 'text' },
};
const bare: ModelRequest = { messages: [{ role: 'user', content: 'hi' }] };
const weather = { name: 'weather', inputSchema: { type: 'object' } };

describe('toAnthropicMessages', () => {
  it('converts every field the request type can express', () => {
    const body = toAnthropicMessages(everyField, { model: 'fallback' });
    expect(body).toEqual({
      model: 'model-from-request',
      stream: true,
      system: 'You are terse.',
      max_tokens: 321,
      temperature: 0.25,
      top_p: 0.9,
      stop_sequences: ['END'],
      tool_choice: { type: 'tool', name: 'weather' },
      messages: [
        { role: 'user', content: 'What is the weather in Oslo and Rome?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking both.' },
            { type: 'tool_use', id: 'call_oslo', name: 'weather', input: { city: 'Oslo' } },
            {
              type: 'tool_use',
              id: 'call_rome',
              name: 'weather',
              input: { city: 'Rome', unit: 'C' },
            },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_oslo', content: '-3 C, snow' },
            {
              type: 'tool_result',
              tool_use_id: 'call_rome',
              content: 'station offline',
              is_error: true,
            },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Thanks.' },
            { type: 'text', text: 'Summarise.' },
          ],
        },
      ],
      tools: [
        {
          name: 'weather',
          description: 'Current weather for a city',
          input_schema: fullRequest.tools?.[0]?.inputSchema,
        },
      ],
    });
  });

  it('maps the tool choice modes: required is any', () => {
    const sent = (['auto', 'none', 'required'] as const).map(
      (toolChoice) =>
        toAnthropicMessages({ ...bare, tools: [weather], toolChoice }, { model: 'm' }).tool_choice,
    );
    expect(sent).toEqual([{ type: 'auto' }, { type: 'none' }, { type: 'any' }]);
  });

  it('refuses a JSON response format before building anything, naming the field', () => {
    for (const responseFormat of [
      { type: 'json_object' },
      { type: 'json_schema', name: 'answer', schema: { type: 'object' } },
    ] as const) {
      expect(() => toAnthropicMessages({ ...bare, responseFormat }, { model: 'm' })).toThrow(
        expect.objectContaining({
          name: 'UnsupportedRequestError',
          keelKind: 'invalid_request',
          message: expect.stringContaining(`responseFormat: ${responseFormat.type}`),
        }),
      );
    }
  });

  it('always sends max_tokens: request, then transport default, then the built-in default', () => {
    const bare = { messages: [{ role: 'user' as const, content: 'hi' }] };
    expect(toAnthropicMessages(bare, { model: 'm', maxTokens: 77 }).max_tokens).toBe(77);
    expect(toAnthropicMessages(bare, { model: 'm' }).max_tokens).toBe(DEFAULT_ANTHROPIC_MAX_TOKENS);
  });

  it('adds type object to a tool schema without one', () => {
    const body = toAnthropicMessages(
      { messages: [], tools: [{ name: 't', inputSchema: { properties: {} } }] },
      { model: 'm' },
    );
    expect(body.tools).toEqual([{ name: 't', input_schema: { type: 'object', properties: {} } }]);
  });

  it('puts tool_result blocks first in a user message (the API requires it), each group in order', () => {
    const body = toAnthropicMessages(
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Here are the results.' },
              { type: 'tool_result', toolUseId: 'call_1', content: 'one' },
              { type: 'text', text: 'And one more thing.' },
              { type: 'tool_result', toolUseId: 'call_2', content: 'two', isError: true },
            ],
          },
        ],
      },
      { model: 'm' },
    );
    expect(body.messages[0]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'call_1', content: 'one' },
      { type: 'tool_result', tool_use_id: 'call_2', content: 'two', is_error: true },
      { type: 'text', text: 'Here are the results.' },
      { type: 'text', text: 'And one more thing.' },
    ]);
  });

  it('refuses a tool_result in an assistant message', () => {
    expect(() =>
      toAnthropicMessages(
        {
          messages: [
            { role: 'assistant', content: [{ type: 'tool_result', toolUseId: 'x', content: '' }] },
          ],
        },
        { model: 'm' },
      ),
    ).toThrow(UnsupportedRequestError);
  });
});
