import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from './support/expect-api-error';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';

const TOKEN = 'keel-test-token-a7c2';
const JSON_TYPE = { 'content-type': 'application/json' };

let mock: MockProvider;
let gateway: GatewayProcess;

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startGateway({
    config: {
      server: { authToken: TOKEN },
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'api',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-auth-0001' }],
        },
      ],
      models: { primary: 'api/api-model' },
    },
  });
});
afterAll(async () => {
  await gateway?.stop();
  await mock?.close();
  if (gateway !== undefined) await removeDir(gateway.dir);
});

const sessionFiles = async () =>
  (await readdir(join(gateway.dir, 'sessions')).catch(() => [])).sort();

describe('the bearer token', () => {
  const routes: Array<[string, string, string | undefined]> = [
    ['POST', '/v1/sessions/auth-1/messages', '{"text":"hi"}'],
    ['GET', '/v1/sessions/auth-1', undefined],
    ['GET', '/v1/sessions/auth-1/transcript', undefined],
    ['PUT', '/v1/sessions/auth-1/model', '{"model":"api/api-model"}'],
    ['POST', '/v1/sessions/auth-1/compact', undefined],
    ['GET', '/v1/sessions/auth-1/events', undefined],
    ['GET', '/v1/sessions/auth-1/events?follow=1', undefined],
    ['GET', '/v1/events?follow=1', undefined],
    ['GET', '/v1/sessions', undefined],
    ['GET', '/v1/providers/health', undefined],
    ['GET', '/metrics', undefined],
    ['GET', '/nope', undefined],
  ];
  const wrong: Array<Record<string, string>> = [
    {},
    { authorization: '' },
    { authorization: 'Bearer' },
    { authorization: 'Bearer wrong-token' },
    { authorization: `Bearer ${TOKEN}x` },
    { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
    { authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` },
    { authorization: TOKEN },
    { 'x-api-key': '' },
    { 'x-api-key': `${TOKEN}x` },
    { 'x-api-key': `Bearer ${TOKEN}` },
  ];

  it('answers 401 on every route but /healthz when it is missing or wrong', async () => {
    const before = mock.requests.length;
    for (const [method, path, body] of routes) {
      for (const headers of wrong) {
        const response = await gateway.fetch(path, {
          method,
          headers: { ...headers, ...(body === undefined ? {} : JSON_TYPE) },
          ...(body === undefined ? {} : { body }),
        });
        expectApiError(response.status, await response.text(), 401, 'unauthorized');
      }
    }
    expect(mock.requests.length).toBe(before);
    expect(await sessionFiles()).not.toContain('auth-1.jsonl');
    for (const path of ['/healthz', '/healthz?verbose=1']) {
      const health = await gateway.fetch(path);
      expect(health.status).toBe(200);
    }
  });

  it('lets a correct token through, whatever the scheme case', async () => {
    mock.enqueue({ behavior: { type: 'ok', text: 'authorized' }, match: { model: 'api-model' } });
    const response = await gateway.fetch('/v1/sessions/auth-2/messages', {
      method: 'POST',
      headers: { authorization: `bearer ${TOKEN}`, ...JSON_TYPE },
      body: '{"text":"hi"}',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ outcome: 'reply', text: 'authorized' });
  });

  it('lets the token through as x-api-key too (what Anthropic clients send)', async () => {
    mock.enqueue({ behavior: { type: 'ok', text: 'by api key' }, match: { model: 'api-model' } });
    const response = await gateway.fetch('/v1/sessions/auth-3/messages', {
      method: 'POST',
      headers: { 'x-api-key': TOKEN, ...JSON_TYPE },
      body: '{"text":"hi"}',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ outcome: 'reply', text: 'by api key' });
  });
});
