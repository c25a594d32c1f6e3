// The real `openai` SDK (6, and 7 once) against the built gateway's /v1/chat/completions: plain
// and streamed answers naming the model that answered, a tool round trip with ids kept, both
// translations (OpenAI wire to an Anthropic upstream and to an OpenAI one), a fallback, /v1/models.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { createMockProvider, type MockProvider, mockFaults } from '@keel/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { script, startCompatGateway, TOKEN, upstream } from './compat-openai-support';
import { type GatewayProcess, removeDir } from './support/gateway-process';

let mock: MockProvider;
let gateway: GatewayProcess;
let client: OpenAI;

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startCompatGateway(mock, {
    authToken: TOKEN,
    models: { primary: 'ca/sdk-primary', fallbacks: ['co/sdk-fallback'] },
    routes: { openai: { primary: 'co/sdk-openai' }, tools: { primary: 'ca/sdk-tools' } },
  });
  client = new OpenAI({ apiKey: TOKEN, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.stop();
  if (gateway !== undefined) await removeDir(gateway.dir);
  await mock?.close();
});

const ask = [{ role: 'user' as const, content: 'hi' }];

describe('the openai SDK through /v1/chat/completions', () => {
  it('a plain answer from an Anthropic upstream: text, finish, usage, the model that answered', async () => {
    script(mock, 'sdk-primary', {
      type: 'ok',
      text: 'Hello from Anthropic.',
      usage: { inputTokens: 11, outputTokens: 4 },
    });
    const completion = await client.chat.completions.create({ model: 'default', messages: ask });
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'ca/sdk-primary',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: { role: 'assistant', content: 'Hello from Anthropic.' },
        },
      ],
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.usage).toEqual({
      prompt_tokens: 11,
      completion_tokens: 4,
      total_tokens: 15,
      // The mock's Anthropic wire reports cache reads as 0: known, so sent.
      prompt_tokens_details: { cached_tokens: 0 },
    });
    expect(upstream(mock, 'sdk-primary').map((r) => r.api)).toEqual(['anthropic-messages']);
  });

  it('a streamed answer from an OpenAI upstream: chunks, the role first, usage when asked, [DONE]', async () => {
    script(mock, 'sdk-openai', { type: 'ok', text: 'one two three four', chunkSize: 4 });
    const stream = await client.chat.completions.create({
      model: 'openai',
      messages: ask,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
      'one two three four',
    );
    expect(new Set(chunks.map((chunk) => chunk.model))).toEqual(new Set(['co/sdk-openai']));
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: expect.any(Number) },
    });
    expect(upstream(mock, 'sdk-openai').map((r) => r.api)).toEqual(['openai-chat']);
  });

  it('the primary overloaded before its first byte: the answer and every chunk name the fallback', async () => {
    script(mock, 'sdk-primary', mockFaults.overloaded(), mockFaults.overloaded());
    script(
      mock,
      'sdk-fallback',
      { type: 'ok', text: 'from the fallback' },
      { type: 'ok', text: 'again' },
    );
    const plain = await client.chat.completions.create({ model: 'default', messages: ask });
    expect(plain.model).toBe('co/sdk-fallback');
    expect(plain.choices[0]?.message.content).toBe('from the fallback');
    const streamed = await client.chat.completions
      .stream({ model: 'ca/sdk-primary', messages: ask })
      .finalChatCompletion();
    expect(streamed.model).toBe('co/sdk-fallback');
    expect(streamed.choices[0]?.message.content).toBe('again');
  });

  it('a tool round trip across wires: the model calls a tool, the client answers it, ids kept both ways', async () => {
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'weather',
          description: 'The weather in a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    ];
    mock.enqueue({
      behavior: {
        type: 'ok',
        text: '',
        toolCalls: [{ id: 'toolu_keep_1', name: 'weather', input: { city: 'Oslo' } }],
      },
      match: { model: 'sdk-tools' },
    });
    const first = await client.chat.completions
      .stream({
        model: 'tools',
        messages: [{ role: 'user', content: 'weather in Oslo?' }],
        tools,
        tool_choice: 'auto',
      })
      .finalChatCompletion();
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({
      id: 'toolu_keep_1',
      type: 'function',
      function: { name: 'weather' },
    });
    expect(JSON.parse(call?.type === 'function' ? call.function.arguments : '')).toEqual({
      city: 'Oslo',
    });

    script(mock, 'sdk-tools', { type: 'ok', text: 'It rains in Oslo.' });
    const second = await client.chat.completions.create({
      model: 'tools',
      tools,
      messages: [
        { role: 'user', content: 'weather in Oslo?' },
        first.choices[0]?.message as OpenAI.ChatCompletionAssistantMessageParam,
        { role: 'tool', tool_call_id: 'toolu_keep_1', content: 'rain, 8 °C' },
      ],
    });
    expect(second.choices[0]?.message.content).toBe('It rains in Oslo.');
    const sent = upstream(mock, 'sdk-tools').at(-1)?.body as {
      messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
      tools: Array<{ name: string }>;
    };
    expect(sent.tools.map((tool) => tool.name)).toEqual(['weather']);
    expect(sent.messages[1]?.content).toContainEqual(
      expect.objectContaining({
        type: 'tool_use',
        id: 'toolu_keep_1',
        name: 'weather',
        input: { city: 'Oslo' },
      }),
    );
    expect(sent.messages[2]?.content).toContainEqual(
      expect.objectContaining({
        type: 'tool_result',
        tool_use_id: 'toolu_keep_1',
        content: 'rain, 8 °C',
      }),
    );
  });

  it('a tool round trip through an OpenAI upstream, live-streamed: call ids kept, the result sent back', async () => {
    const tools = [
      { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } },
    ];
    mock.enqueue({
      behavior: {
        type: 'ok',
        text: 'Looking.',
        toolCalls: [{ id: 'call_keep_2', name: 'lookup', input: { q: 'keel' } }],
      },
      match: { model: 'sdk-openai' },
    });
    const first = await client.chat.completions
      .stream({ model: 'openai', messages: ask, tools, tool_choice: 'required' })
      .finalChatCompletion();
    const message = first.choices[0]?.message;
    expect(message?.content).toBe('Looking.');
    expect(message?.tool_calls).toEqual([
      {
        id: 'call_keep_2',
        type: 'function',
        function: { name: 'lookup', arguments: '{"q":"keel"}' },
      },
    ]);
    expect(upstream(mock, 'sdk-openai').at(-1)?.body).toMatchObject({ tool_choice: 'required' });

    script(mock, 'sdk-openai', { type: 'ok', text: 'Found it.' });
    const second = await client.chat.completions.create({
      model: 'openai',
      tools,
      messages: [
        ...ask,
        message as OpenAI.ChatCompletionAssistantMessageParam,
        { role: 'tool', tool_call_id: 'call_keep_2', content: 'keel is a gateway' },
      ],
    });
    expect(second.choices[0]?.message.content).toBe('Found it.');
    const sent = upstream(mock, 'sdk-openai').at(-1)?.body as { messages: unknown[] };
    expect(sent.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [
          {
            id: 'call_keep_2',
            type: 'function',
            function: { name: 'lookup', arguments: '{"q":"keel"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_keep_2', content: 'keel is a gateway' },
    ]);
  });

  it('sampling, the token limit, stop and response_format reach the OpenAI upstream; user is ignored', async () => {
    script(mock, 'sdk-openai', { type: 'ok', text: '{"ok":true}' });
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    await client.chat.completions.create({
      model: 'openai',
      messages: [{ role: 'system', content: 'JSON only' }, ...ask],
      temperature: 0.2,
      top_p: 0.5,
      max_tokens: 64,
      stop: ['END'],
      user: 'someone',
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema, strict: true },
      },
    });
    const sent = upstream(mock, 'sdk-openai').at(-1)?.body as Record<string, unknown>;
    expect(sent).toMatchObject({
      temperature: 0.2,
      top_p: 0.5,
      stop: ['END'],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema, strict: true },
      },
      messages: [
        { role: 'system', content: 'JSON only' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(sent['max_completion_tokens'] ?? sent['max_tokens']).toBe(64);
    expect(sent['user']).toBeUndefined();
  });

  it('GET /v1/models lists the routes, then every configured model', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.map((model) => model.id)).toEqual([
      'default',
      'openai',
      'tools',
      'ca/sdk-primary',
      'ca/sdk-tools',
      'co/sdk-fallback',
      'co/sdk-openai',
    ]);
    expect(models[0]).toMatchObject({
      object: 'model',
      owned_by: 'keel',
      created: expect.any(Number),
    });
  });

  it('openai 7 (the transport workspace has it as openai7) reads the same answers', async () => {
    const require = createRequire(
      new URL('../../packages/transport/package.json', import.meta.url),
    );
    const path = require.resolve('openai7');
    const { default: OpenAI7 } = (await import(pathToFileURL(path).href)) as {
      default: typeof OpenAI;
    };
    const seven = new OpenAI7({ apiKey: TOKEN, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    script(
      mock,
      'sdk-openai',
      { type: 'ok', text: 'seven plain' },
      { type: 'ok', text: 'seven streamed' },
    );
    const plain = await seven.chat.completions.create({ model: 'openai', messages: ask });
    expect(plain.choices[0]?.message.content).toBe('seven plain');
    const streamed = await seven.chat.completions
      .stream({ model: 'openai', messages: ask })
      .finalChatCompletion();
    expect(streamed.choices[0]?.message.content).toBe('seven streamed');
    expect(streamed.model).toBe('co/sdk-openai');
  });
});
