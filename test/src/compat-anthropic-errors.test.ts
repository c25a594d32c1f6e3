/**
 * Every error of the Anthropic-compatible endpoint before its first byte, as the built gateway
 * answers it: the status `@anthropic-ai/sdk` acts on, Anthropic's error shape, `Retry-After` when
 * waiting helps, and never the provider's own text.
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

const TOKEN = 'keel-compat-anthropic-errors';
let mock: MockProvider;
let gateway: GatewayProcess;

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      server: { authToken: TOKEN },
      providers: [
        {
          id: 'ce',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-ce' }],
        },
      ],
      models: { primary: 'ce/err-default' },
      routes: {
        limited: { primary: 'ce/err-429' },
        overloaded: { primary: 'ce/err-529' },
        refused: { primary: 'ce/err-400' },
        broken: { primary: 'ce/err-auth' },
      },
      retry: { maxRetries: 0, maxWaitMs: 0 },
    },
  });
});
afterAll(async () => {
  await gateway?.stop();
  if (gateway) await removeDir(gateway.dir);
  await mock?.close();
});

function script(model: string, ...behaviors: MockBehavior[]): void {
  mock.enqueue(...behaviors.map((behavior) => ({ behavior, match: { model } })));
}
const hi = [{ role: 'user' as const, content: 'hi' }];

async function post(body: unknown, headers: Record<string, string> = { 'x-api-key': TOKEN }) {
  const response = await gateway.fetch('/v1/messages', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as { type: string; error: { type: string; message: string } },
  };
}

/** What the SDK threw: its status, the parsed body and the Retry-After header. */
async function sdkError(client: Anthropic, model: string) {
  try {
    await client.messages.create({ model, max_tokens: 20, messages: hi });
  } catch (error) {
    const {
      status,
      error: body,
      headers,
    } = error as {
      status?: number;
      error?: unknown;
      headers?: Headers;
    };
    return {
      name: (error as Error).constructor.name,
      status,
      body,
      retryAfter: headers?.get('retry-after'),
    };
  }
  throw new Error('the call succeeded');
}

const client = () => new Anthropic({ apiKey: TOKEN, baseURL: gateway.url, maxRetries: 0 });

describe('Anthropic-compatible errors', () => {
  it('401 without a key, with a wrong one; x-api-key and Bearer both pass', async () => {
    const missing = await post({ model: 'default', max_tokens: 5, messages: hi }, {});
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: expect.any(String) },
    });
    const wrong = await sdkError(
      new Anthropic({ apiKey: 'not-the-token', baseURL: gateway.url, maxRetries: 0 }),
      'default',
    );
    expect(wrong).toMatchObject({ name: 'AuthenticationError', status: 401 });
    script('err-default', { type: 'ok', text: 'Bearer works.' });
    const bearer = await post(
      { model: 'default', max_tokens: 5, messages: hi },
      { authorization: `Bearer ${TOKEN}` },
    );
    expect(bearer.status).toBe(200);
  });

  it('404 not_found_error for a model that is no route', async () => {
    const error = await sdkError(client(), 'claude-nowhere');
    expect(error).toMatchObject({
      name: 'NotFoundError',
      status: 404,
      body: { type: 'error', error: { type: 'not_found_error' } },
    });
  });

  it('400 invalid_request_error naming the field', async () => {
    const noMax = await post({ model: 'default', messages: hi });
    expect(noMax.status).toBe(400);
    expect(noMax.body.error).toEqual({
      type: 'invalid_request_error',
      message: 'max_tokens: is required',
    });
    const image = await post({
      model: 'default',
      max_tokens: 5,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'x' } }] }],
    });
    expect(image.status).toBe(400);
    expect(image.body.error.message).toBe(
      'messages.0.content.0.type: image blocks are not supported by this gateway',
    );
    const serverTool = await post({
      model: 'default',
      max_tokens: 5,
      messages: hi,
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
    });
    expect(serverTool.status).toBe(400);
    expect(serverTool.body.error.message).toMatch(/^tools\.0\.type: server tools/);
    const notJson = await gateway.fetch('/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TOKEN },
      body: '{"model":',
    });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { type: string } }).error.type).toBe(
      'invalid_request_error',
    );
    const badMode = await post(
      { model: 'default', max_tokens: 5, messages: hi },
      { 'x-api-key': TOKEN, 'x-keel-stream-mode': 'sometimes' },
    );
    expect(badMode.status).toBe(400);
    expect(badMode.body.error.message).toMatch(/^x-keel-stream-mode/);
    expect(mock.requests.filter((request) => request.model === 'err-default')).toHaveLength(1);
  });

  it('413 request_too_large and 415 in Anthropic’s shape', async () => {
    const huge = await post({
      model: 'default',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }],
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({
      type: 'error',
      error: { type: 'request_too_large', message: expect.any(String) },
    });
    const plain = await gateway.fetch('/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-api-key': TOKEN },
      body: 'hello',
    });
    expect(plain.status).toBe(415);
    expect(await plain.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.any(String) },
    });
  });

  it('429 rate_limit_error with Retry-After when every candidate is cooling', async () => {
    script('err-429', mockFaults.rateLimited({ retryAfterSeconds: 7 }));
    const error = await sdkError(client(), 'limited');
    expect(error).toMatchObject({
      name: 'RateLimitError',
      status: 429,
      body: { type: 'error', error: { type: 'rate_limit_error' } },
    });
    expect(Number(error.retryAfter)).toBeGreaterThanOrEqual(6);
    expect(Number(error.retryAfter)).toBeLessThanOrEqual(7);
  });

  it('529 overloaded_error with Retry-After when the route is overloaded', async () => {
    script('err-529', {
      type: 'http-error',
      status: 529,
      errorType: 'overloaded_error',
      message: 'provider secret text',
      headers: { 'retry-after': '20' },
    });
    const error = await sdkError(client(), 'overloaded');
    expect(error).toMatchObject({
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error' } },
    });
    expect(Number(error.retryAfter)).toBeGreaterThan(0);
    expect(JSON.stringify(error.body)).not.toContain('provider secret text');
  });

  it('400 for a request the model refused; 502 api_error for the provider’s own auth failure', async () => {
    script('err-400', {
      type: 'http-error',
      status: 400,
      errorType: 'invalid_request_error',
      message: 'provider detail 400',
    });
    const refused = await sdkError(client(), 'refused');
    expect(refused).toMatchObject({ name: 'BadRequestError', status: 400 });
    expect(JSON.stringify(refused.body)).not.toContain('provider detail');
    script('err-auth', {
      type: 'http-error',
      status: 401,
      errorType: 'authentication_error',
      message: 'provider key sk-ce is bad',
    });
    const broken = await sdkError(client(), 'broken');
    expect(broken).toMatchObject({
      status: 502,
      body: { type: 'error', error: { type: 'api_error' } },
    });
    expect(JSON.stringify(broken.body)).not.toContain('sk-ce');
  });
});
