import { describe, expect, it } from 'vitest';
import { fullRequest } from '../test/full-request';
import { toOpenAIResponses } from './to-openai-responses';
import { UnsupportedRequestError } from './transport-error';

describe('toOpenAIResponses', () => {
  it('converts every field the Responses API can express', () => {
    const body = toOpenAIResponses({ ...fullRequest, stop: undefined }, { model: 'fallback' });
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
    });
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
