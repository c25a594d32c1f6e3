/**
 * The Anthropic-compatible `POST /v1/messages` of the built gateway, driven by the real
 * `@anthropic-ai/sdk`: answers streamed and not, from an Anthropic-wire and an OpenAI-wire
 * upstream (the mock provider), a tool round trip with ids kept, a fallback named truthfully,
 * `Idempotency-Key` repeats, and count_tokens.
 */
import Anthropic from '@anthropic-ai/sdk';
import {
  createMockProvider,
  type MockBehavior,
  type MockProvider,
  mockFaults,
} from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';

const TOKEN = 'keel-compat-anthropic-token';
let mock: MockProvider;
let gateway: GatewayProcess;
let client: Anthropic;

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      server: { authToken: TOKEN },
      providers: [
        {
          id: 'ca-a',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-ca-a' }],
        },
        {
          id: 'ca-o',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-ca-o' }],
        },
      ],
      models: { primary: 'ca-a/sdk-default' },
      routes: {
        'via-anthropic': { primary: 'ca-a/sdk-a' },
        'via-openai': { primary: 'ca-o/sdk-o' },
        'with-fallback': { primary: 'ca-a/sdk-primary', fallbacks: ['ca-o/sdk-backup'] },
        'tools-a': { primary: 'ca-a/sdk-tools-a' },
        'tools-o': { primary: 'ca-o/sdk-tools-o' },
        repeat: { primary: 'ca-a/sdk-repeat' },
      },
      retry: { maxRetries: 0 },
    },
  });
  client = new Anthropic({ apiKey: TOKEN, baseURL: gateway.url, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.stop();
  if (gateway) await removeDir(gateway.dir);
  await mock?.close();
});

function script(model: string, ...behaviors: MockBehavior[]): void {
  mock.enqueue(...behaviors.map((behavior) => ({ behavior, match: { model } })));
}
const sentTo = (model: string) => mock.requests.filter((request) => request.model === model);
const hi = [{ role: 'user' as const, content: 'hi' }];

describe('POST /v1/messages with @anthropic-ai/sdk', () => {
  it('answers a message from an Anthropic upstream, naming the model, with usage in Anthropic fields (the cache split: anthropic-message.test.ts)', async () => {
    script('sdk-a', {
      type: 'ok',
      text: 'Hello from the Anthropic upstream.',
      usage: { inputTokens: 50, outputTokens: 6 },
    });
    const message = await client.messages.create({
      model: 'via-anthropic',
      max_tokens: 200,
      system: 'Be brief.',
      messages: hi,
    });
    expect(message.type).toBe('message');
    expect(message.id).toMatch(/^msg_/);
    expect(message.model).toBe('ca-a/sdk-a');
    expect(message.content).toEqual([{ type: 'text', text: 'Hello from the Anthropic upstream.' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({
      input_tokens: 50,
      output_tokens: 6,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    const [sent] = sentTo('sdk-a');
    expect(sent?.system).toBe('Be brief.');
    expect(sent?.body).toMatchObject({ max_tokens: 200 });
  });

  it('streams the full event sequence from an OpenAI upstream', async () => {
    script('sdk-o', {
      type: 'ok',
      text: 'Streamed through the OpenAI wire.',
      chunkSize: 5,
      usage: { inputTokens: 40, outputTokens: 8 },
    });
    const stream = client.messages.stream({ model: 'via-openai', max_tokens: 100, messages: hi });
    const names: string[] = [];
    stream.on('streamEvent', (event) => names.push(event.type));
    const message = await stream.finalMessage();
    expect(message.model).toBe('ca-o/sdk-o');
    expect(message.content).toEqual([{ type: 'text', text: 'Streamed through the OpenAI wire.' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 40, output_tokens: 8 });
    expect(names[0]).toBe('message_start');
    expect(names[1]).toBe('content_block_start');
    expect(names.filter((name) => name === 'content_block_delta').length).toBeGreaterThan(1);
    expect(names.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
  });

  for (const [route, model] of [
    ['tools-a', 'sdk-tools-a'],
    ['tools-o', 'sdk-tools-o'],
  ] as const) {
    it(`a tool round trip through ${route}: the model's tool id reaches the client and comes back`, async () => {
      const id = `toolu_rt_${route}`;
      script(
        model,
        { type: 'ok', toolCalls: [{ id, name: 'weather', input: { city: 'Oslo' } }] },
        { type: 'ok', text: 'It rains in Oslo.' },
      );
      const tools = [
        {
          name: 'weather',
          description: 'The forecast for a city',
          input_schema: {
            type: 'object' as const,
            properties: { city: { type: 'string' } },
            required: ['city'],
          },
        },
      ];
      const first = await client.messages
        .stream({
          model: route,
          max_tokens: 100,
          messages: [{ role: 'user', content: 'Weather in Oslo?' }],
          tools,
        })
        .finalMessage();
      expect(first.stop_reason).toBe('tool_use');
      expect(first.content).toEqual([
        { type: 'tool_use', id, name: 'weather', input: { city: 'Oslo' } },
      ]);
      const second = await client.messages.create({
        model: route,
        max_tokens: 100,
        tools,
        tool_choice: { type: 'auto' },
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: id, content: 'rain, 4 C' }],
          },
        ],
      });
      expect(second.content).toEqual([{ type: 'text', text: 'It rains in Oslo.' }]);
      const sent = JSON.stringify(sentTo(model)[1]?.body);
      if (route === 'tools-a') {
        expect(sent).toContain(`"tool_use_id":"${id}"`);
        expect(sent).toContain(`"type":"tool_use","id":"${id}"`);
      } else {
        expect(sent).toContain(`"tool_call_id":"${id}"`);
        expect(sent).toContain(`"id":"${id}","type":"function"`);
      }
      expect(sent).toContain('rain, 4 C');
    });
  }

  it('falls back when the primary is overloaded: the answer names the fallback', async () => {
    script('sdk-primary', mockFaults.overloaded());
    script('sdk-backup', { type: 'ok', text: 'From the backup.' });
    const message = await client.messages.create({
      model: 'with-fallback',
      max_tokens: 50,
      messages: hi,
    });
    expect(message.model).toBe('ca-o/sdk-backup');
    expect(message.content).toEqual([{ type: 'text', text: 'From the backup.' }]);
    script('sdk-primary', mockFaults.overloaded());
    script('sdk-backup', { type: 'ok', text: 'Streamed from the backup.' });
    const streamed = await client.messages
      .stream({ model: 'with-fallback', max_tokens: 50, messages: hi })
      .finalMessage();
    expect(streamed.model).toBe('ca-o/sdk-backup');
    expect(streamed.content).toEqual([{ type: 'text', text: 'Streamed from the backup.' }]);
  });

  it('Idempotency-Key: repeats, concurrent ones too, get the first answer from one model call', async () => {
    script('sdk-repeat', { type: 'ok', text: 'Only once.', chunkDelayMs: 50 });
    const request = { model: 'repeat', max_tokens: 50, messages: hi };
    const headers = { headers: { 'idempotency-key': 'ca-repeat-1' } };
    const [first, concurrent] = await Promise.all([
      client.messages.create(request, headers),
      client.messages.create(request, headers),
    ]);
    const later = await client.messages.stream(request, headers).finalMessage();
    expect(first.content).toEqual([{ type: 'text', text: 'Only once.' }]);
    expect(concurrent.id).toBe(first.id);
    expect(concurrent.content).toEqual(first.content);
    expect(later.id).toBe(first.id);
    expect(later.content).toEqual(first.content);
    expect(sentTo('sdk-repeat')).toHaveLength(1);
    // Another key is another call.
    script('sdk-repeat', { type: 'ok', text: 'Twice.' });
    const other = await client.messages.create(request, {
      headers: { 'idempotency-key': 'ca-repeat-2' },
    });
    expect(other.content).toEqual([{ type: 'text', text: 'Twice.' }]);
    expect(sentTo('sdk-repeat')).toHaveLength(2);
  });

  it('count_tokens estimates the input, also on the ?beta=true path Claude Code uses', async () => {
    const counted = await client.messages.countTokens({
      model: 'via-anthropic',
      system: 'x'.repeat(400),
      messages: [{ role: 'user', content: 'y'.repeat(400) }],
    });
    expect(counted).toEqual({ input_tokens: 200 });
    const beta = await gateway.fetch('/v1/messages?beta=true', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TOKEN },
      body: JSON.stringify({ model: 'via-anthropic', max_tokens: 10, messages: hi }),
    });
    expect(beta.status).toBe(200);
    expect(((await beta.json()) as { model: string }).model).toBe('ca-a/sdk-a');
    expect(mock.requests.filter((request) => request.api === 'count-tokens')).toHaveLength(0);
  });
});
