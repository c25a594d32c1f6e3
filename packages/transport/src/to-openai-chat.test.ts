import type { ModelRequest } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { fullRequest } from '../test/full-request';
import { toOpenAIChat } from './to-openai-chat';
import { UnsupportedRequestError } from './transport-error';

/** The shared request with the sampling and format fields too. */
const everyField: ModelRequest = {
  ...fullRequest,
  topP: 0.9,
  toolChoice: { type: 'tool', name: 'weather' },
  responseFormat: {
    type: 'json_schema',
    name: 'summary',
    schema: { type: 'object', properties: { text: { type: 'string' } } },
    strict: true,
  },
};
const bare: ModelRequest = { messages: [{ role: 'user', content: 'hi' }] };
const weather = { name: 'weather', inputSchema: { type: 'object' } };

describe('toOpenAIChat', () => {
  it('converts every field the request type can express', () => {
    const body = toOpenAIChat(everyField, { model: 'fallback-model' });
    expect(body).toEqual({
      model: 'model-from-request',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'What is the weather in Oslo and Rome?' },
        {
          role: 'assistant',
          content: 'Checking both.',
          tool_calls: [
            {
              id: 'call_oslo',
              type: 'function',
              function: { name: 'weather', arguments: '{"city":"Oslo"}' },
            },
            {
              id: 'call_rome',
              type: 'function',
              function: { name: 'weather', arguments: '{"city":"Rome","unit":"C"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_oslo', content: '-3 C, snow' },
        { role: 'tool', tool_call_id: 'call_rome', content: '[tool error] station offline' },
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
          type: 'function',
          function: {
            name: 'weather',
            description: 'Current weather for a city',
            parameters: fullRequest.tools?.[0]?.inputSchema,
          },
        },
      ],
      max_completion_tokens: 321,
      temperature: 0.25,
      top_p: 0.9,
      stop: ['END'],
      tool_choice: { type: 'function', function: { name: 'weather' } },
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'summary',
          schema: { type: 'object', properties: { text: { type: 'string' } } },
          strict: true,
        },
      },
    });
  });

  it('sends the tool choice modes as they are', () => {
    for (const toolChoice of ['auto', 'none', 'required'] as const) {
      const body = toOpenAIChat({ ...bare, tools: [weather], toolChoice }, { model: 'm' });
      expect(body.tool_choice).toBe(toolChoice);
    }
  });

  it('sends text and json_object formats as given, and a schema without strict without it', () => {
    for (const type of ['text', 'json_object'] as const) {
      const body = toOpenAIChat({ ...bare, responseFormat: { type } }, { model: 'm' });
      expect(body.response_format).toEqual({ type });
    }
    const schema = { type: 'object' };
    const body = toOpenAIChat(
      { ...bare, responseFormat: { type: 'json_schema', name: 'answer', schema } },
      { model: 'm' },
    );
    // Strictly: no `strict: undefined` key (a server could read it as a value).
    expect(body.response_format).toStrictEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', schema },
    });
  });

  it('refuses a tool choice no tool can satisfy', () => {
    expect(() => toOpenAIChat({ ...bare, toolChoice: 'required' }, { model: 'm' })).toThrow(
      UnsupportedRequestError,
    );
  });

  it('uses the transport default max tokens and the configured field name', () => {
    const body = toOpenAIChat(
      { messages: [{ role: 'user', content: 'hi' }] },
      { model: 'm', maxTokens: 50, maxTokensField: 'max_tokens' },
    );
    expect(body.max_tokens).toBe(50);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.max_completion_tokens).toBeUndefined();
    expect(body.tools).toBeUndefined();
    expect(body.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('leaves out stream_options when includeUsage is false', () => {
    const body = toOpenAIChat({ messages: [] }, { model: 'm', includeUsage: false });
    expect(body).toEqual({ model: 'm', messages: [], stream: true });
  });

  it('sends an assistant message with only tool calls with null content', () => {
    const body = toOpenAIChat(
      {
        messages: [
          { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'n', input: {} }] },
        ],
      },
      { model: 'm' },
    );
    expect(body.messages[0]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'a', type: 'function', function: { name: 'n', arguments: '{}' } }],
    });
  });

  it('refuses blocks in the wrong role', () => {
    expect(() =>
      toOpenAIChat(
        {
          messages: [
            { role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'n', input: {} }] },
          ],
        },
        { model: 'm' },
      ),
    ).toThrow(UnsupportedRequestError);
  });
});
