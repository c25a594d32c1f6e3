// The AI SDK's OpenAI-compatible provider pointed at Keel (`baseURL: <gateway>/v1`): generateText
// and streamText, a tool call included, answered by either upstream wire behind the gateway.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { generateText, isStepCount, jsonSchema, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { script, startCompatGateway, TOKEN, upstream } from './compat-openai-support';
import { type GatewayProcess, removeDir } from './support/gateway-process';

let mock: MockProvider;
let gateway: GatewayProcess;
let keel: ReturnType<typeof createOpenAICompatible>;

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startCompatGateway(mock, {
    authToken: TOKEN,
    models: { primary: 'ca/ai-anthropic' },
    routes: { openai: { primary: 'co/ai-openai' } },
  });
  keel = createOpenAICompatible({
    baseURL: `${gateway.url}/v1`,
    name: 'keel',
    apiKey: TOKEN,
    includeUsage: true,
  });
});
afterAll(async () => {
  await gateway?.stop();
  if (gateway !== undefined) await removeDir(gateway.dir);
  await mock?.close();
});

describe('the AI SDK’s OpenAI-compatible provider through Keel', () => {
  it('generateText, answered by an Anthropic upstream, with usage and the answering model', async () => {
    script(mock, 'ai-anthropic', { type: 'ok', text: 'Generated through Keel.' });
    const result = await generateText({ model: keel('default'), prompt: 'hi', maxRetries: 0 });
    expect(result.text).toBe('Generated through Keel.');
    expect(result.finishReason).toBe('stop');
    expect(result.response.modelId).toBe('ca/ai-anthropic');
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  });

  it('streamText, answered by an OpenAI upstream, text as it streams and usage at the end', async () => {
    script(mock, 'ai-openai', {
      type: 'ok',
      text: 'Streamed through Keel, in pieces.',
      chunkSize: 5,
    });
    const result = streamText({ model: keel('openai'), prompt: 'hi', maxRetries: 0 });
    const parts: string[] = [];
    for await (const part of result.textStream) parts.push(part);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.join('')).toBe('Streamed through Keel, in pieces.');
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).inputTokens).toBeGreaterThan(0);
  });

  it('a tool call and its result go round trip through generateText, ids kept', async () => {
    mock.enqueue({
      behavior: {
        type: 'ok',
        text: '',
        toolCalls: [{ id: 'toolu_ai_1', name: 'weather', input: { city: 'Oslo' } }],
      },
      match: { model: 'ai-anthropic' },
    });
    script(mock, 'ai-anthropic', { type: 'ok', text: 'It rains in Oslo.' });
    const weather = tool({
      description: 'The weather in a city',
      inputSchema: jsonSchema<{ city: string }>({
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      }),
      execute: async ({ city }) => `rain in ${city}`,
    });
    const result = await generateText({
      model: keel('default'),
      prompt: 'weather in Oslo?',
      tools: { weather },
      stopWhen: isStepCount(2),
      maxRetries: 0,
    });
    expect(result.text).toBe('It rains in Oslo.');
    expect(result.steps[0]?.toolCalls.map((call) => call.toolCallId)).toEqual(['toolu_ai_1']);
    const sent = upstream(mock, 'ai-anthropic').at(-1)?.body as {
      messages: Array<{ content: Array<Record<string, unknown>> | string }>;
    };
    expect(JSON.stringify(sent.messages)).toContain('"tool_use_id":"toolu_ai_1"');
  });
});
