// Every error of /v1/chat/completions before the first byte, as the openai SDK sees it: the status
// it understands, OpenAI's error shape, `Retry-After` when every candidate is cooling, never
// provider text; and `Idempotency-Key` repeats that reach the upstream exactly once.
import { createMockProvider, type MockProvider, mockFaults } from '@keel/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawStream, script, startCompatGateway, TOKEN, upstream } from './compat-openai-support';
import { type GatewayProcess, removeDir } from './support/gateway-process';

let mock: MockProvider;
let gateway: GatewayProcess;
let client: OpenAI;

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startCompatGateway(mock, {
    authToken: TOKEN,
    models: { primary: 'co/err-default' },
    routes: {
      anthropic: { primary: 'ca/err-anthropic' },
      limited: { primary: 'ca/err-limited-a', fallbacks: ['co/err-limited-o'] },
      busy: { primary: 'ca/err-busy-a', fallbacks: ['co/err-busy-o'] },
      locked: { primary: 'ca/err-locked' },
      repeat: { primary: 'co/err-repeat' },
    },
  });
  client = new OpenAI({ apiKey: TOKEN, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.stop();
  if (gateway !== undefined) await removeDir(gateway.dir);
  await mock?.close();
});

const ask = [{ role: 'user' as const, content: 'hi' }];

/** What the SDK threw: status, the error body it parsed, the Retry-After header. */
async function failure(call: () => Promise<unknown>) {
  try {
    await call();
  } catch (error) {
    const api = error as { status?: number; error?: Record<string, unknown>; headers?: Headers };
    return { status: api.status, error: api.error, retryAfter: api.headers?.get('retry-after') };
  }
  throw new Error('nothing thrown');
}

/** A raw request: status and body text (for requests the SDK would not send). */
async function post(body: string, headers: Record<string, string> = {}) {
  const response = await gateway.fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return {
    status: response.status,
    body: (await response.json()) as { error: Record<string, unknown> },
  };
}

describe('errors before the first byte, in OpenAI’s shape', () => {
  it('an unknown model is 404 model_not_found', async () => {
    const thrown = await failure(() =>
      client.chat.completions.create({ model: 'gpt-4o', messages: ask }),
    );
    expect(thrown).toMatchObject({
      status: 404,
      error: { code: 'model_not_found', type: 'invalid_request_error', param: 'model' },
    });
    expect(Object.keys(thrown.error ?? {}).sort()).toEqual(['code', 'message', 'param', 'type']);
  });

  it('a bad body is 400 naming the field: a missing field, n other than 1, a bad tool call, bad JSON', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect(await post(JSON.stringify({ model: 'default' }), auth)).toMatchObject({
      status: 400,
      body: {
        error: {
          type: 'invalid_request_error',
          param: 'messages',
          message: expect.stringContaining('messages'),
        },
      },
    });
    const n = await failure(() =>
      client.chat.completions.create({ model: 'default', messages: ask, n: 2 }),
    );
    expect(n).toMatchObject({ status: 400, error: { param: 'n' } });
    const args = await failure(() =>
      client.chat.completions.create({
        model: 'default',
        messages: [
          {
            role: 'assistant',
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'f', arguments: 'not json' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'x' },
        ],
      }),
    );
    expect(args).toMatchObject({
      status: 400,
      error: { param: 'messages.0.tool_calls.0.function.arguments' },
    });
    expect(await post('{"model":', auth)).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_request_error', message: 'The body is not valid JSON' } },
    });
    expect(upstream(mock, 'err-default')).toEqual([]);
  });

  it('response_format an Anthropic model cannot honour is a clear 400, nothing sent upstream', async () => {
    const thrown = await failure(() =>
      client.chat.completions.create({
        model: 'anthropic',
        messages: ask,
        response_format: { type: 'json_object' },
      }),
    );
    expect(thrown).toMatchObject({ status: 400, error: { type: 'invalid_request_error' } });
    expect(String(thrown.error?.['message'])).toContain('response_format');
    expect(upstream(mock, 'err-anthropic')).toEqual([]);
  });

  it('401 without a token, with a wrong Bearer or x-api-key; the right x-api-key passes', async () => {
    const body = JSON.stringify({ model: 'gpt-4o', messages: ask });
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer wrong' },
      { 'x-api-key': 'wrong' },
    ];
    for (const headers of attempts) {
      expect(await post(body, headers)).toMatchObject({
        status: 401,
        body: { error: { type: 'authentication_error', code: 'invalid_api_key' } },
      });
    }
    const wrong = new OpenAI({ apiKey: 'wrong', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    expect(await failure(() => wrong.models.list())).toMatchObject({ status: 401 });
    // Past the token guard: the unknown model's 404.
    expect((await post(body, { 'x-api-key': TOKEN })).status).toBe(404);
  });

  it('every candidate rate-limited is 429 with Retry-After; every one overloaded is 503 with it', async () => {
    const limited = { ...mockFaults.rateLimited({ retryAfterSeconds: 40 }) };
    script(mock, 'err-limited-a', limited);
    script(mock, 'err-limited-o', limited);
    const rate = await failure(() =>
      client.chat.completions.create({ model: 'limited', messages: ask }),
    );
    expect(rate).toMatchObject({ status: 429, error: { type: 'rate_limit_error' } });
    expect(Number(rate.retryAfter)).toBeGreaterThanOrEqual(1);

    const busy = { ...mockFaults.overloaded(), headers: { 'retry-after': '40' } };
    script(mock, 'err-busy-a', busy);
    script(mock, 'err-busy-o', busy);
    const overloaded = await failure(() =>
      client.chat.completions.create({ model: 'busy', messages: ask }),
    );
    expect(overloaded).toMatchObject({ status: 503, error: { type: 'server_error' } });
    expect(Number(overloaded.retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it('the provider refusing Keel’s own key is 502 with Keel’s words, never the client’s 401 or provider text', async () => {
    script(mock, 'err-locked', mockFaults.unauthorized({ apiKey: 'sk-compat-openai-a' }));
    const thrown = await failure(() =>
      client.chat.completions.create({ model: 'locked', messages: ask }),
    );
    expect(thrown.status).toBe(502);
    expect(JSON.stringify(thrown.error)).not.toMatch(/x-api-key|sk-compat|authentication_error/);
  });
});

describe('Idempotency-Key', () => {
  it('a repeat, and a concurrent repeat, get the first answer with exactly one upstream request', async () => {
    script(mock, 'err-repeat', { type: 'ok', text: 'said once', chunkDelayMs: 30, chunkSize: 2 });
    const key = { headers: { 'Idempotency-Key': 'k-1' } };
    const [first, joined, streamed] = await Promise.all([
      client.chat.completions.create({ model: 'repeat', messages: ask }, key),
      client.chat.completions.create({ model: 'repeat', messages: ask }, key),
      rawStream(gateway, { model: 'repeat', messages: ask }, { 'idempotency-key': 'k-1' }),
    ]);
    const later = await client.chat.completions.create({ model: 'repeat', messages: ask }, key);
    expect(first.choices[0]?.message.content).toBe('said once');
    expect([joined.id, later.id]).toEqual([first.id, first.id]);
    expect(later.choices[0]?.message.content).toBe('said once');
    const text = streamed.data
      .slice(0, -1)
      .map((chunk) => (chunk as OpenAI.ChatCompletionChunk).choices[0]?.delta.content ?? '')
      .join('');
    expect({ text, done: streamed.done }).toEqual({ text: 'said once', done: true });
    expect(upstream(mock, 'err-repeat')).toHaveLength(1);
  });

  it('is scoped by the credential, whichever header carries it', async () => {
    // No token configured: any credential passes, so two callers can use the same key.
    const open = await startCompatGateway(mock, { models: { primary: 'co/err-scoped' } });
    try {
      const as = (headers: Record<string, string | null>) =>
        new OpenAI({
          apiKey: 'unused',
          baseURL: `${open.url}/v1`,
          maxRetries: 0,
          defaultHeaders: headers,
        });
      const key = { headers: { 'Idempotency-Key': 'shared-key' } };
      const answer = async (client: OpenAI) =>
        (await client.chat.completions.create({ model: 'default', messages: ask }, key)).choices[0]
          ?.message.content;
      script(
        mock,
        'err-scoped',
        { type: 'ok', text: 'for alice' },
        { type: 'ok', text: 'for bob' },
      );
      expect(await answer(as({ authorization: 'Bearer alice' }))).toBe('for alice');
      expect(await answer(as({ authorization: 'Bearer bob' }))).toBe('for bob');
      // Alice again, her key in x-api-key this time: the same caller, the first answer.
      expect(await answer(as({ authorization: null, 'x-api-key': 'alice' }))).toBe('for alice');
      expect(upstream(mock, 'err-scoped')).toHaveLength(2);
    } finally {
      await open.stop();
      await removeDir(open.dir);
    }
  });
});
