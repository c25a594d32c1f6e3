// The sampling, tool-choice and format fields as they arrive at a provider, through each real SDK
// (openai 6 and 7, @anthropic-ai/sdk) to the loopback mock: what the SDK sends, not what we built.
import type { ModelRequest } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { drain, hello, SDK_TARGETS, transportFor, useMockProvider } from '../test/mock-transport';

const mock = useMockProvider();

const weather = {
  name: 'weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
};
const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

/** Every field; `stop` only where the API has stop sequences, a format only where it has one. */
function requestFor(api: string): ModelRequest {
  return {
    ...hello,
    tools: [weather],
    temperature: 0.3,
    topP: 0.8,
    toolChoice: { type: 'tool', name: 'weather' },
    ...(api === 'openai-responses' ? {} : { stop: ['END'] }),
    ...(api === 'anthropic-messages'
      ? { responseFormat: { type: 'text' } }
      : { responseFormat: { type: 'json_schema', name: 'place', schema, strict: true } }),
  };
}

/** What each API must have received for `requestFor(api)`. */
const expectedFields = {
  'openai-chat': {
    temperature: 0.3,
    top_p: 0.8,
    stop: ['END'],
    tool_choice: { type: 'function', function: { name: 'weather' } },
    response_format: { type: 'json_schema', json_schema: { name: 'place', schema, strict: true } },
  },
  'openai-responses': {
    temperature: 0.3,
    top_p: 0.8,
    tool_choice: { type: 'function', name: 'weather' },
    text: { format: { type: 'json_schema', name: 'place', schema, strict: true } },
  },
  'anthropic-messages': {
    temperature: 0.3,
    top_p: 0.8,
    stop_sequences: ['END'],
    tool_choice: { type: 'tool', name: 'weather' },
  },
};

describe.each(SDK_TARGETS)('$name: request fields at the provider', (target) => {
  const { api } = target;

  it('sends temperature, top_p, stop, the tool choice and the response format', async () => {
    mock.enqueue({ type: 'ok', toolCalls: [{ id: 'call_w', name: 'weather', input: {} }] });
    const { error } = await drain(transportFor(target, mock).stream(requestFor(api)));
    expect(error).toBeUndefined();
    expect(mock.requests).toHaveLength(1);
    const body = mock.requests[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject(expectedFields[api]);
    if (api === 'anthropic-messages') expect(body).not.toHaveProperty('response_format');
  });

  it('sends the required mode in its own wire form', async () => {
    mock.enqueue({ type: 'ok', toolCalls: [{ id: 'call_r', name: 'weather', input: {} }] });
    const request: ModelRequest = { ...hello, tools: [weather], toolChoice: 'required' };
    const { error } = await drain(transportFor(target, mock).stream(request));
    expect(error).toBeUndefined();
    const body = mock.requests[0]?.body as Record<string, unknown>;
    expect(body['tool_choice']).toEqual(
      api === 'anthropic-messages' ? { type: 'any' } : 'required',
    );
  });

  if (api === 'anthropic-messages') {
    it('refuses a JSON format with UnsupportedRequestError and sends nothing', async () => {
      mock.enqueue({ type: 'ok', text: 'never sent' });
      const request: ModelRequest = { ...hello, responseFormat: { type: 'json_object' } };
      const { events, error } = await drain(transportFor(target, mock).stream(request));
      expect(events).toEqual([]);
      expect(error).toMatchObject({ name: 'UnsupportedRequestError', keelKind: 'invalid_request' });
      expect((error as Error).message).toContain('responseFormat');
      expect(mock.requests).toHaveLength(0);
    });
  }
});
