import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createMockProvider } from './mock-provider';
import type { MockProvider } from './mock-provider-types';

let provider: MockProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

async function start(strict: boolean): Promise<MockProvider> {
  provider = await createMockProvider({ strict });
  // A queued answer that a refused request must leave in the queue.
  provider.enqueue({ type: 'ok', text: 'queued' });
  return provider;
}

const anthropicClient = (mock: MockProvider) =>
  new Anthropic({ apiKey: 'sk-ant-test', baseURL: mock.anthropicBaseUrl, maxRetries: 0 });
const openaiClient = (mock: MockProvider) =>
  new OpenAI({ apiKey: 'sk-test', baseURL: mock.openaiBaseUrl, maxRetries: 0 });

type AnthropicMessages = Anthropic.MessageParam[];
const use = { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} } as const;
const result = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'found' } as const;
const anthropicCases: Record<string, AnthropicMessages> = {
  'a tool_use left last': [
    { role: 'user', content: 'find it' },
    { role: 'assistant', content: [use] },
  ],
  'a tool_use answered by a text message': [
    { role: 'user', content: 'find it' },
    { role: 'assistant', content: [use] },
    { role: 'user', content: 'never mind' },
  ],
  'one of two tool_use blocks answered': [
    { role: 'user', content: 'find it' },
    { role: 'assistant', content: [use, { ...use, id: 'toolu_2' }] },
    { role: 'user', content: [result] },
  ],
  'a tool_result without its tool_use': [
    { role: 'user', content: 'find it' },
    { role: 'assistant', content: 'I will look.' },
    { role: 'user', content: [result] },
  ],
  'a tool_result two messages after its tool_use': [
    { role: 'user', content: 'find it' },
    { role: 'assistant', content: [use] },
    { role: 'user', content: [result] },
    { role: 'assistant', content: 'found' },
    { role: 'user', content: [result] },
  ],
};

async function anthropicStatus(mock: MockProvider, messages: AnthropicMessages) {
  return anthropicClient(mock)
    .messages.create({ model: 'claude-test', max_tokens: 10, messages })
    .then(
      () => ({ status: 200, body: undefined as unknown }),
      (error: InstanceType<typeof Anthropic.APIError>) => ({
        status: error.status,
        body: error.error,
      }),
    );
}

describe('strict mode: unpaired tool blocks get the providers’ 400 invalid_request_error', () => {
  for (const [name, messages] of Object.entries(anthropicCases)) {
    it(`Anthropic: ${name}`, async () => {
      const mock = await start(true);
      const answer = await anthropicStatus(mock, messages);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringContaining('toolu_') },
      });
      expect(mock.requests.at(-1)?.strictRejection).toContain('toolu_');
      expect(mock.pending()).toBe(1);
    });
  }

  it('Anthropic: a paired conversation is answered from the queue; strict off refuses nothing', async () => {
    const paired: AnthropicMessages = [
      { role: 'user', content: 'find it' },
      { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, use] },
      { role: 'user', content: [result, { type: 'text', text: 'and?' }] },
    ];
    const strict = await start(true);
    expect((await anthropicStatus(strict, paired)).status).toBe(200);
    expect(strict.requests.at(-1)?.strictRejection).toBeUndefined();
    expect(strict.pending()).toBe(0);
    await strict.close();
    const lenient = await start(false);
    expect((await anthropicStatus(lenient, anthropicCases['a tool_use left last']!)).status).toBe(
      200,
    );
  });

  it('OpenAI chat: tool_calls without their tool messages, and a tool message without its call', async () => {
    const mock = await start(true);
    const client = openaiClient(mock);
    const call = {
      id: 'call_1',
      type: 'function' as const,
      function: { name: 'lookup', arguments: '{}' },
    };
    const refused = (messages: OpenAI.ChatCompletionMessageParam[]) =>
      client.chat.completions.create({ model: 'gpt-test', messages }).then(
        () => undefined,
        (error: InstanceType<typeof OpenAI.APIError>) => ({
          status: error.status,
          body: error.error,
        }),
      );
    expect(
      await refused([
        { role: 'user', content: 'find it' },
        { role: 'assistant', content: null, tool_calls: [call, { ...call, id: 'call_2' }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'found' },
        { role: 'user', content: 'and?' },
      ]),
    ).toEqual({
      status: 400,
      body: {
        message:
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_2",
        type: 'invalid_request_error',
        param: 'messages.[1].role',
        code: null,
      },
    });
    expect(
      await refused([
        { role: 'user', content: 'find it' },
        { role: 'tool', tool_call_id: 'call_1', content: 'found' },
      ]),
    ).toMatchObject({
      status: 400,
      body: { type: 'invalid_request_error', param: 'messages.[1].role' },
    });
    expect(mock.pending()).toBe(1);
    const answered = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: 'find it' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: 'call_1', content: 'found' },
      ],
    });
    expect(answered.choices[0]?.message.content).toBe('queued');
  });

  it('OpenAI responses: a function_call without its output, and an output without its call', async () => {
    const mock = await start(true);
    const client = openaiClient(mock);
    const call = {
      type: 'function_call' as const,
      call_id: 'call_1',
      name: 'lookup',
      arguments: '{}',
    };
    const output = { type: 'function_call_output' as const, call_id: 'call_1', output: 'found' };
    const statusOf = (input: OpenAI.Responses.ResponseInput) =>
      client.responses.create({ model: 'gpt-test', input }).then(
        () => 200,
        (error: InstanceType<typeof OpenAI.APIError>) => {
          expect(error.error).toMatchObject({ type: 'invalid_request_error', param: 'input' });
          return error.status;
        },
      );
    expect(await statusOf([{ role: 'user', content: 'find it' }, call])).toBe(400);
    expect(await statusOf([{ role: 'user', content: 'find it' }, output])).toBe(400);
    expect(mock.pending()).toBe(1);
    expect(await statusOf([{ role: 'user', content: 'find it' }, call, output])).toBe(200);
  });
});
