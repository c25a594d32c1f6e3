import { Agent, request as httpRequest } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMockProvider } from './mock-provider';
import type { MockProvider, MockProviderOptions } from './mock-provider-types';

let provider: MockProvider | undefined;

async function start(options?: MockProviderOptions): Promise<MockProvider> {
  provider = await createMockProvider(options);
  return provider;
}
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

describe('createMockProvider', () => {
  it('binds 127.0.0.1 and exposes SDK base URLs', async () => {
    const mock = await start();
    expect(mock.url).toBe(`http://127.0.0.1:${mock.port}`);
    expect(mock.openaiBaseUrl).toBe(`${mock.url}/v1`);
    expect(mock.anthropicBaseUrl).toBe(mock.url);
    const head = await fetch(mock.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const get = await fetch(`${mock.url}/`);
    expect(get.status).toBe(200);
  });

  it('numbers the connection each request came on: a kept-alive one keeps its number', async () => {
    const mock = await start();
    const post = (agent: Agent | false) =>
      new Promise<void>((resolve, reject) => {
        const outgoing = httpRequest(
          `${mock.url}/v1/chat/completions`,
          { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
          (answer) => answer.resume().once('end', resolve),
        );
        outgoing.once('error', reject);
        outgoing.end('{"model":"m","messages":[{"role":"user","content":"hi"}]}');
      });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await post(agent);
      await post(agent);
      await post(false);
      await post(false);
    } finally {
      agent.destroy();
    }
    const [first, second, third, fourth] = mock.requests.map((request) => request.connection);
    expect(first).toBe(1);
    expect(second).toBe(first);
    expect(third).toBe(2);
    expect(fourth).toBe(3);
  });

  it('answers unknown paths with a 404 JSON error and records them as other', async () => {
    const mock = await start();
    const response = await fetch(`${mock.url}/v1/embeddings`, {
      method: 'POST',
      body: '{"model":"e"}',
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { type: 'not_found_error' } });
    expect(mock.requests.at(-1)).toMatchObject({
      api: 'other',
      path: '/v1/embeddings',
      model: 'e',
      behavior: 'http-error',
    });
  });

  it('records each request: api, path with query, model, key, stream, messages, system, headers', async () => {
    const mock = await start();
    const raw = await fetch(`${mock.anthropicBaseUrl}/v1/messages?beta=true`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'sk-ant-record',
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({
        model: 'claude-record',
        max_tokens: 5,
        system: 'be terse',
        messages: [{ role: 'user', content: 'remember me' }],
      }),
    });
    expect(raw.status).toBe(200);
    expect(await raw.json()).toMatchObject({ type: 'message', role: 'assistant' });
    const openai = new OpenAI({
      apiKey: 'sk-openai-record',
      baseURL: mock.openaiBaseUrl,
      maxRetries: 0,
    });
    const stream = await openai.chat.completions.create({
      model: 'gpt-record',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hi' },
      ],
      stream: true,
    });
    for await (const _chunk of stream) {
      // drain
    }
    const [first, second] = mock.requests;
    expect(first).toMatchObject({
      api: 'anthropic-messages',
      method: 'POST',
      path: '/v1/messages?beta=true',
      model: 'claude-record',
      apiKey: 'sk-ant-record',
      stream: false,
      system: 'be terse',
      messages: [{ role: 'user', content: 'remember me' }],
      behavior: 'ok',
    });
    expect(first?.headers['x-api-key']).toBe('sk-ant-record');
    expect(first?.headers['anthropic-version']).toBeDefined();
    expect(second).toMatchObject({
      api: 'openai-chat',
      path: '/v1/chat/completions',
      model: 'gpt-record',
      apiKey: 'sk-openai-record',
      stream: true,
      system: undefined,
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(second?.headers['authorization']).toBe('Bearer sk-openai-record');
    expect(second?.body).toMatchObject({ model: 'gpt-record', stream: true });
  });

  it('counts tokens without consuming the queue', async () => {
    const mock = await start({ script: [{ type: 'hang' }] });
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: mock.anthropicBaseUrl, maxRetries: 0 });
    const short = await anthropic.messages.countTokens({
      model: 'claude-x',
      messages: [{ role: 'user', content: 'a' }],
    });
    const long = await anthropic.messages.countTokens({
      model: 'claude-x',
      messages: [{ role: 'user', content: 'a'.repeat(4000) }],
    });
    expect(short.input_tokens).toBeGreaterThan(0);
    expect(long.input_tokens).toBeGreaterThan(short.input_tokens + 900);
    expect(mock.pending()).toBe(1);
    expect(mock.requests.map((request) => request.api)).toEqual(['count-tokens', 'count-tokens']);
  });

  it('matches queue entries by api, model (string or RegExp) and key; unmatched entries stay queued', async () => {
    const mock = await start();
    mock.enqueue(
      { behavior: { type: 'ok', text: 'for haiku' }, match: { model: /haiku/ } },
      { behavior: { type: 'ok', text: 'for chat' }, match: { api: 'openai-chat' } },
      {
        behavior: { type: 'ok', text: 'for key b' },
        match: { apiKey: 'b', model: 'claude-main' },
        times: 2,
      },
    );
    const anthropicA = new Anthropic({
      apiKey: 'a',
      baseURL: mock.anthropicBaseUrl,
      maxRetries: 0,
    });
    const anthropicB = new Anthropic({
      apiKey: 'b',
      baseURL: mock.anthropicBaseUrl,
      maxRetries: 0,
    });
    const openai = new OpenAI({ apiKey: 'a', baseURL: mock.openaiBaseUrl, maxRetries: 0 });
    const ask = async (client: Anthropic, model: string) => {
      const message = await client.messages.create({
        model,
        max_tokens: 5,
        messages: [{ role: 'user', content: 'q' }],
      });
      return message.content[0]?.type === 'text' ? message.content[0].text : '';
    };
    expect(await ask(anthropicA, 'claude-main')).toMatch(/^Mock reply/);
    expect(await ask(anthropicB, 'claude-main')).toBe('for key b');
    expect(mock.pending()).toBe(3);
    expect(await ask(anthropicA, 'claude-haiku-4-5')).toBe('for haiku');
    expect(await ask(anthropicB, 'claude-main')).toBe('for key b');
    expect(mock.pending()).toBe(1);
    const responses = await openai.responses.create({ model: 'gpt', input: 'q' });
    expect(responses.output_text).toMatch(/^Mock reply/);
    const chat = await openai.chat.completions.create({
      model: 'gpt',
      messages: [{ role: 'user', content: 'q' }],
    });
    expect(chat.choices[0]?.message.content).toBe('for chat');
    expect(mock.pending()).toBe(0);
  });

  it('uses the defaultReply option, and reset() clears queue and record', async () => {
    const mock = await start({
      defaultReply: (request) => `model ${request.model} heard ${JSON.stringify(request.messages)}`,
      script: [{ type: 'hang' }],
    });
    mock.reset();
    expect(mock.pending()).toBe(0);
    const openai = new OpenAI({ apiKey: 'k', baseURL: mock.openaiBaseUrl, maxRetries: 0 });
    const response = await openai.responses.create({ model: 'm1', input: 'yo' });
    expect(response.output_text).toBe('model m1 heard "yo"');
    expect(mock.requests).toHaveLength(1);
    mock.reset();
    expect(mock.requests).toHaveLength(0);
  });

  it('requireApiKey answers other keys with a provider-shaped 401 without consuming the queue', async () => {
    const mock = await start({ requireApiKey: 'right', script: [{ type: 'ok', text: 'welcome' }] });
    const wrong = new Anthropic({ apiKey: 'wrong', baseURL: mock.anthropicBaseUrl, maxRetries: 0 });
    await expect(
      wrong.messages.create({
        model: 'c',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'q' }],
      }),
    ).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    const wrongOpenai = new OpenAI({ apiKey: 'wrong', baseURL: mock.openaiBaseUrl, maxRetries: 0 });
    const error = await wrongOpenai.chat.completions
      .create({ model: 'c', messages: [{ role: 'user', content: 'q' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_api_key');
    expect((error as Error).message).toContain('Incorrect API key provided: wrong.');
    expect(mock.pending()).toBe(1);
    const right = new Anthropic({ apiKey: 'right', baseURL: mock.anthropicBaseUrl, maxRetries: 0 });
    const message = await right.messages.create({
      model: 'c',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'q' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'welcome' }]);
  });

  it('answers malformed JSON with a 400', async () => {
    const mock = await start();
    const response = await fetch(`${mock.url}/v1/messages`, { method: 'POST', body: '{not json' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
  });

  it('serves the same default reply on every api for the same user text', async () => {
    const mock = await start();
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: mock.anthropicBaseUrl, maxRetries: 0 });
    const openai = new OpenAI({ apiKey: 'k', baseURL: mock.openaiBaseUrl, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'c',
      max_tokens: 5,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'same words' }] }],
    });
    const chat = await openai.chat.completions.create({
      model: 'g',
      messages: [{ role: 'user', content: 'same words' }],
    });
    const responses = await openai.responses.create({
      model: 'g',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'same words' }] }],
    });
    const text = message.content[0]?.type === 'text' ? message.content[0].text : '';
    expect(text).toContain('same words');
    expect(chat.choices[0]?.message.content).toBe(text);
    expect(responses.output_text).toBe(text);
  });
});

describe('waitForRequests', () => {
  it('resolves once the count is reached, at once when it already is, and wakes on abort', async () => {
    const mock = await start({ script: [{ type: 'hang' }] });
    const openai = new OpenAI({ apiKey: 'k', baseURL: mock.openaiBaseUrl, maxRetries: 0 });
    expect(await mock.waitForRequests(0)).toEqual([]);
    const order: string[] = [];
    const first = mock.waitForRequests(1).then((requests) => {
      order.push(`first: ${requests.map((request) => request.behavior).join()}`);
    });
    const second = mock.waitForRequests(2).then(() => order.push('second'));
    const aborted = new AbortController();
    const never = mock.waitForRequests(3, { signal: aborted.signal });
    const controller = new AbortController();
    const hanging = openai.chat.completions
      .create(
        { model: 'm', messages: [{ role: 'user', content: 'q' }] },
        { signal: controller.signal },
      )
      .catch((error: unknown) => error);
    await first;
    expect(order).toEqual(['first: hang']);
    await openai.responses.create({ model: 'm', input: 'q' });
    await second;
    expect(order).toEqual(['first: hang', 'second']);
    aborted.abort(new Error('gave up'));
    await expect(never).rejects.toThrow('gave up');
    await expect(mock.waitForRequests(1, { signal: aborted.signal })).rejects.toThrow('gave up');
    await expect(mock.waitForRequests(-1)).rejects.toBeInstanceOf(RangeError);
    controller.abort();
    expect(await hanging).toBeInstanceOf(OpenAI.APIUserAbortError);
  });
});

describe('latencyMs', () => {
  it('holds each model request that long before its answer starts', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const mock = await start({ latencyMs: 50_000, defaultReply: () => 'late' });
      let status: number | undefined;
      const answered = new Promise<string>((resolve, reject) => {
        const outgoing = httpRequest(
          `${mock.openaiBaseUrl}/chat/completions`,
          { method: 'POST', headers: { 'content-type': 'application/json' } },
          (response) => {
            status = response.statusCode;
            let body = '';
            response.on('data', (chunk: Buffer) => {
              body += chunk.toString('utf8');
            });
            response.on('end', () => resolve(body));
          },
        );
        outgoing.on('error', reject);
        outgoing.end(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
      });
      await mock.waitForRequests(1);
      await vi.advanceTimersByTimeAsync(49_999);
      // A request answered at once, sent after it: an answer without the wait would be here first.
      expect((await fetch(mock.url, { method: 'HEAD' })).status).toBe(200);
      expect(status).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(JSON.parse(await answered).choices[0].message.content).toBe('late');
      expect(status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });
});
