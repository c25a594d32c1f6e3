import type { Message, ModelEvent } from '@keel/spec';
import type { RecordedRequest } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import {
  drain,
  hello,
  SDK_TARGETS,
  type SdkApi,
  textOf,
  transportFor,
  useMockProvider,
} from '../test/mock-transport';

const mock = useMockProvider();

interface WireToolResult {
  id: string;
  content: unknown;
  isError?: boolean;
}

/** The tool-call ids and the tool results the provider received, per wire format. */
function toolBlocksInRecordedBody(api: SdkApi, request: RecordedRequest | undefined) {
  const body = request?.body as Record<string, unknown>;
  const calls: string[] = [];
  const results: WireToolResult[] = [];
  switch (api) {
    case 'openai-chat':
      for (const message of body['messages'] as Array<Record<string, unknown>>) {
        for (const call of (message['tool_calls'] as Array<{ id: string }> | undefined) ?? []) {
          calls.push(call.id);
        }
        if (message['role'] === 'tool') {
          results.push({ id: message['tool_call_id'] as string, content: message['content'] });
        }
      }
      break;
    case 'openai-responses':
      for (const item of body['input'] as Array<Record<string, unknown>>) {
        if (item['type'] === 'function_call') calls.push(item['call_id'] as string);
        if (item['type'] === 'function_call_output') {
          results.push({ id: item['call_id'] as string, content: item['output'] });
        }
      }
      break;
    case 'anthropic-messages':
      for (const message of body['messages'] as Array<{ content: unknown }>) {
        if (!Array.isArray(message.content)) continue;
        for (const block of message.content as Array<Record<string, unknown>>) {
          if (block['type'] === 'tool_use') calls.push(block['id'] as string);
          if (block['type'] === 'tool_result') {
            results.push({
              id: block['tool_use_id'] as string,
              content: block['content'],
              ...(block['is_error'] === undefined ? {} : { isError: block['is_error'] as boolean }),
            });
          }
        }
      }
      break;
  }
  return { calls, results };
}

describe.each(SDK_TARGETS)('$name against the mock provider', (target) => {
  const { api } = target;
  it('streams text, then usage, then finish', async () => {
    mock.enqueue({
      type: 'ok',
      text: 'Hello from the loopback model, in several chunks.',
      usage: { inputTokens: 31, outputTokens: 9 },
      chunkSize: 5,
    });
    const { events, error } = await drain(transportFor(target, mock).stream(hello));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('Hello from the loopback model, in several chunks.');
    expect(events.filter((event) => event.type === 'text-delta').length).toBeGreaterThan(1);
    // The mock sends each wire's cache counts as its provider does: none on Chat Completions
    // without prompt_tokens_details, a cached_tokens of 0 on Responses, both counts on Messages.
    const cache = {
      'openai-chat': {},
      'openai-responses': { cacheReadTokens: 0 },
      'anthropic-messages': { cacheReadTokens: 0, cacheWriteTokens: 0 },
    }[api];
    expect(events.slice(-2)).toEqual([
      { type: 'usage', inputTokens: 31, outputTokens: 9, ...cache },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(mock.requests).toHaveLength(1);
    expect(mock.requests[0]?.model).toBe(mock.model);
    expect(mock.requests[0]?.stream).toBe(true);
    if (api === 'openai-chat') {
      // Chat Completions streams carry usage only when asked for it.
      const body = mock.requests[0]?.body as { stream_options?: unknown };
      expect(body.stream_options).toEqual({ include_usage: true });
    }
  });

  it('assembles tool calls and round-trips their ids into the follow-up request', async () => {
    mock.enqueue({
      type: 'ok',
      toolCalls: [
        { id: 'call_keel_1', name: 'weather', input: { city: 'Oslo', days: [1, 2] } },
        { name: 'clock', input: {} },
      ],
    });
    const transport = transportFor(target, mock);
    const tools = [
      {
        name: 'weather',
        description: 'Weather by city',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      },
      { name: 'clock', inputSchema: { type: 'object', properties: {} } },
    ];
    const model = `${mock.model}-tools`;
    const first = await drain(transport.stream({ ...hello, tools, model }));
    expect(first.error).toBeUndefined();
    const calls = first.events.filter(
      (event): event is Extract<ModelEvent, { type: 'tool-call' }> => event.type === 'tool-call',
    );
    expect(calls.map(({ name, input }) => ({ name, input }))).toEqual([
      { name: 'weather', input: { city: 'Oslo', days: [1, 2] } },
      { name: 'clock', input: {} },
    ]);
    expect(calls[0]?.id).toBe('call_keel_1');
    expect(calls[1]?.id).toMatch(/mock/);
    expect(first.events.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' });
    expect(mock.requests[0]?.model).toBe(model);

    const followUp: Message[] = [
      ...hello.messages,
      {
        role: 'assistant',
        content: calls.map((call) => ({
          type: 'tool_use' as const,
          id: call.id,
          name: call.name,
          input: call.input,
        })),
      },
      {
        role: 'tool',
        content: calls.map((call, index) => ({
          type: 'tool_result' as const,
          toolUseId: call.id,
          content: `result ${index}`,
          ...(index === 1 ? { isError: true } : {}),
        })),
      },
    ];
    mock.enqueue({ type: 'ok', text: 'Done.' });
    const second = await drain(transport.stream({ messages: followUp, tools }));
    expect(second.error).toBeUndefined();
    expect(textOf(second.events)).toBe('Done.');
    const [okId, failedId] = calls.map((call) => call.id);
    // The failed result keeps its flag: Anthropic's is_error, or a visible prefix on OpenAI.
    expect(toolBlocksInRecordedBody(api, mock.requests[1])).toEqual({
      calls: [okId, failedId],
      results:
        api === 'anthropic-messages'
          ? [
              { id: okId, content: 'result 0' },
              { id: failedId, content: 'result 1', isError: true },
            ]
          : [
              { id: okId, content: 'result 0' },
              { id: failedId, content: '[tool error] result 1' },
            ],
    });
  });

  it('surfaces a refusal: a refusal event on OpenAI, text on Anthropic; finish content-filter', async () => {
    const refusal = "I can't help with that request.";
    mock.enqueue({ type: 'ok', refusal, chunkSize: 6 });
    const { events, error } = await drain(transportFor(target, mock).stream(hello));
    expect(error).toBeUndefined();
    if (api === 'anthropic-messages') {
      // The Messages API refuses in text, with stop_reason "refusal".
      expect(textOf(events)).toBe(refusal);
      expect(events.some((event) => event.type === 'refusal')).toBe(false);
    } else {
      expect(events.filter((event) => event.type === 'refusal')).toEqual([
        { type: 'refusal', text: refusal },
      ]);
      expect(textOf(events)).toBe('');
    }
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'content-filter' });
  });

  it('sends the transport defaults for model and max tokens', async () => {
    mock.enqueue({ type: 'ok', text: 'ok' });
    const model = `${mock.model}-configured`;
    const transport = transportFor(target, mock, { model, maxTokens: 123 });
    const { error } = await drain(transport.stream({ ...hello, system: 'Be brief.' }));
    expect(error).toBeUndefined();
    const recorded = mock.requests[0];
    expect(recorded?.model).toBe(model);
    const body = recorded?.body as Record<string, unknown>;
    const limitField = {
      'openai-chat': 'max_completion_tokens',
      'openai-responses': 'max_output_tokens',
      'anthropic-messages': 'max_tokens',
    }[api];
    expect(body[limitField]).toBe(123);
    if (api === 'openai-chat') {
      expect(body['messages']).toContainEqual({ role: 'system', content: 'Be brief.' });
    } else {
      expect(recorded?.system).toBe('Be brief.');
    }
  });
});
