import type { ModelRequest } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { fullRequest } from '../test/full-request';
import { toOpenAIResponses } from './to-openai-responses';
import { UnsupportedRequestError } from './transport-error';

/** The shared request with the sampling and format fields, less stop (not on Responses). */
const everyField: ModelRequest = {
  ...fullRequest,
  stop: undefined,
  topP: 0.9,
  toolChoice: { type: 'tool', name: 'weather' },
  responseFormat: {
    type: 'json_schema',
    name: 'summary',
    schema: { type: 'object', properties: { text: { type: 'string' } } },
    strict: false,
  },
};
const bare: ModelRequest = { messages: [{ role: 'user', content: 'hi' }] };
const weather = { name: 'weather', inputSchema: { type: 'object' } };

describe('toOpenAIResponses', () => {
  it('converts every field the Responses API can express', () => {
    const body = toOpenAIResponses(everyField, { model: 'fallback' });
    expect(body).toEqual({
      model: 'model-from-request',
      stream: true,
      store: false,
      instructions: 'You are terse.',
      input: [
        { type: 'message', role: 'user', content: 'What is the weather in Oslo and Rome?' },
        { type: 'message', role: 'assistant', content: 'Checking both.' },
        {
          type: 'function_call',
          call_id: 'call_oslo',
          name: 'weather',
          arguments: '{"city":"Oslo"}',
        },
        {
          type: 'function_call',
          call_id: 'call_rome',
          name: 'weather',
          arguments: '{"city":"Rome","unit":"C"}',
        },
        { type: 'function_call_output', call_id: 'call_oslo', output: '-3 C, snow' },
        {
          type: 'function_call_output',
          call_id: 'call_rome',
          output: '[tool error] station offline',
        },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'Thanks.' },
            { type: 'input_text', text: 'Summarise.' },
          ],
        },
      ],
      tools: [
        {
          type: 'function',
          name: 'weather',
          description: 'Current weather for a city',
          parameters: fullRequest.tools?.[0]?.inputSchema,
          strict: false,
        },
      ],
      max_output_tokens: 321,
      temperature: 0.25,
      top_p: 0.9,
      tool_choice: { type: 'function', name: 'weather' },
      text: {
        format: {
          type: 'json_schema',
          name: 'summary',
          schema: { type: 'object', properties: { text: { type: 'string' } } },
          strict: false,
        },
      },
    });
  });

  it('sends the tool choice modes as they are', () => {
    for (const toolChoice of ['auto', 'none', 'required'] as const) {
      const body = toOpenAIResponses({ ...bare, tools: [weather], toolChoice }, { model: 'm' });
      expect(body.tool_choice).toBe(toolChoice);
    }
  });

  it('puts text and json_object formats in text.format', () => {
    for (const type of ['text', 'json_object'] as const) {
      const body = toOpenAIResponses({ ...bare, responseFormat: { type } }, { model: 'm' });
      expect(body.text).toEqual({ format: { type } });
    }
    expect(toOpenAIResponses(bare, { model: 'm' }).text).toBeUndefined();
  });

  it('refuses a named tool choice that is not among the tools', () => {
    const request: ModelRequest = {
      ...bare,
      tools: [weather],
      toolChoice: { type: 'tool', name: 'clock' },
    };
    expect(() => toOpenAIResponses(request, { model: 'm' })).toThrow(UnsupportedRequestError);
  });

  it('refuses stop sequences, which the Responses API cannot express', () => {
    expect(() => toOpenAIResponses(fullRequest, { model: 'm' })).toThrow(UnsupportedRequestError);
  });

  it('falls back to the transport max tokens', () => {
    const body = toOpenAIResponses(
      { messages: [{ role: 'user', content: 'hi' }] },
      { model: 'm', maxTokens: 9 },
    );
    expect(body.max_output_tokens).toBe(9);
    expect(body.instructions).toBeUndefined();
  });
});
