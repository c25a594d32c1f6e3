import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayRuntime } from '../compose/create-runtime';
import { configSchema } from '../config/config-schema';
import { createApp } from '../http/create-app';
import { estimateTokens } from './register-keys';

const ADMIN = 'admin-token-0001';
const ALPHA = 'alpha-secret-0001';
const BETA = 'beta-secret-0001';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** The real app over the embedded demo model, with two keys and the admin token. */
async function startApp(
  keys: unknown[],
  dir?: string,
): Promise<{ app: FastifyInstance; dir: string }> {
  const root = dir ?? (await mkdtemp(join(tmpdir(), 'keel-keys-')));
  const config = configSchema.parse({
    server: { authToken: ADMIN },
    sessionsDir: join(root, 'sessions'),
    providers: [{ id: 'demo', api: 'demo' }],
    models: {
      primary: 'demo/keel-demo',
      // A dollar per token: one answer costs more than any cap below.
      settings: { 'demo/keel-demo': { prices: { input: 1_000_000, output: 1_000_000 } } },
    },
    routes: { other: { primary: 'demo/keel-demo' } },
    keys,
  });
  const runtime = await createGatewayRuntime(config);
  const app = await createApp({ runtime, logger: false, state: { stopping: false } });
  cleanup.push(async () => {
    await app.close();
    await runtime.close();
    if (dir === undefined) await rm(root, { recursive: true, force: true });
  });
  return { app, dir: root };
}

const as = (secret: string) => ({ authorization: `Bearer ${secret}` });
const send = (app: FastifyInstance, secret: string, sessionId: string, text = 'hello') =>
  app.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/messages`,
    headers: { ...as(secret), 'content-type': 'application/json' },
    payload: { text },
  });

const twoKeys = [
  { id: 'alpha', secret: ALPHA, models: ['default'] },
  { id: 'beta', secret: BETA },
];

describe('client keys on the HTTP API', () => {
  it('lets a key reach only the client routes; the admin token reaches all', async () => {
    const { app } = await startApp(twoKeys);
    expect((await app.inject({ url: '/v1/sessions' })).statusCode).toBe(401);
    expect(
      (await app.inject({ url: '/v1/sessions', headers: as('wrong-secret-0001') })).statusCode,
    ).toBe(401);
    for (const url of ['/metrics', '/v1/providers/health', '/v1/calls', '/v1/events']) {
      const refused = await app.inject({ url, headers: as(BETA) });
      expect(refused.statusCode, url).toBe(403);
      expect(refused.json()).toEqual({
        error: { code: 'forbidden', message: 'This key may not use this route' },
      });
      expect((await app.inject({ url, headers: as(ADMIN) })).statusCode, url).toBe(200);
    }
    expect(
      (await app.inject({ url: '/v1/sessions', headers: { 'x-api-key': BETA } })).statusCode,
    ).toBe(200);
    expect((await app.inject({ url: '/healthz', headers: as(BETA) })).statusCode).toBe(200);
  });

  it('keeps a session to the key that created it: other keys get 404, the admin sees it', async () => {
    const { app } = await startApp(twoKeys);
    expect((await send(app, ALPHA, 'mine')).statusCode).toBe(200);
    for (const url of [
      '/v1/sessions/mine',
      '/v1/sessions/mine/transcript',
      '/v1/sessions/mine/events',
    ]) {
      expect((await app.inject({ url, headers: as(BETA) })).statusCode, url).toBe(404);
      expect((await app.inject({ url, headers: as(ALPHA) })).statusCode, url).toBe(200);
      expect((await app.inject({ url, headers: as(ADMIN) })).statusCode, url).toBe(200);
    }
    const write = await send(app, BETA, 'mine');
    expect(write.statusCode).toBe(404);
    expect(write.json().error.code).toBe('not_found');
    const compact = await app.inject({
      method: 'POST',
      url: '/v1/sessions/mine/compact',
      headers: as(BETA),
    });
    expect(compact.statusCode).toBe(404);
    const list = async (secret: string) =>
      (await app.inject({ url: '/v1/sessions', headers: as(secret) }))
        .json()
        .sessions.map((session: { sessionId: string }) => session.sessionId);
    expect(await list(ALPHA)).toEqual(['mine']);
    expect(await list(BETA)).toEqual([]);
    expect(await list(ADMIN)).toEqual(['mine']);
    // A session the admin created belongs to no key.
    expect((await send(app, ADMIN, 'admins')).statusCode).toBe(200);
    expect((await send(app, ALPHA, 'admins')).statusCode).toBe(404);
  });

  it('remembers owners across a restart', async () => {
    const first = await startApp(twoKeys);
    expect((await send(first.app, ALPHA, 'kept')).statusCode).toBe(200);
    const again = await startApp(twoKeys, first.dir);
    expect(
      (await again.app.inject({ url: '/v1/sessions/kept', headers: as(BETA) })).statusCode,
    ).toBe(404);
    expect(
      (await again.app.inject({ url: '/v1/sessions/kept', headers: as(ALPHA) })).statusCode,
    ).toBe(200);
  });

  it('answers 429 with Retry-After past rpm, in the route wire', async () => {
    const { app } = await startApp([{ id: 'alpha', secret: ALPHA, rpm: 2 }]);
    expect((await send(app, ALPHA, 'r1')).statusCode).toBe(200);
    const chat = (secret: string) =>
      app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { ...as(secret), 'content-type': 'application/json' },
        payload: { model: 'default', messages: [{ role: 'user', content: 'hi' }] },
      });
    expect((await chat(ALPHA)).statusCode).toBe(200);
    const native = await send(app, ALPHA, 'r1');
    expect(native.statusCode).toBe(429);
    expect(Number(native.headers['retry-after'])).toBeGreaterThan(50);
    expect(Number(native.headers['retry-after'])).toBeLessThanOrEqual(61);
    expect(native.json().error.code).toBe('rate_limited');
    const openai = await chat(ALPHA);
    expect(openai.statusCode).toBe(429);
    expect(openai.json().error).toMatchObject({
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
    });
    expect(openai.headers['retry-after']).toBeDefined();
    // The admin token has no limits.
    expect((await chat(ADMIN)).statusCode).toBe(200);
  });

  it('answers 429 past tpm once the reported tokens of the last minute reach it', async () => {
    const { app } = await startApp([{ id: 'alpha', secret: ALPHA, tpm: 5 }]);
    expect((await send(app, ALPHA, 't1')).statusCode).toBe(200);
    const usage = (await app.inject({ url: '/v1/keys/alpha/usage', headers: as(ALPHA) })).json();
    expect(usage.remaining).toEqual({ tpm: 0 });
    const refused = await send(app, ALPHA, 't1');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.message).toMatch(/5 tokens per minute/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('answers 403 budget_exceeded once a key spent its daily cap, and counts its usage', async () => {
    const { app } = await startApp([
      { id: 'alpha', secret: ALPHA },
      { id: 'beta', secret: BETA, spendCapUsd: { day: 1 } },
    ]);
    const messages = (secret: string) =>
      app.inject({
        method: 'POST',
        url: '/v1/messages',
        headers: { 'x-api-key': secret, 'content-type': 'application/json' },
        payload: { model: 'default', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] },
      });
    expect((await messages(BETA)).statusCode).toBe(200);
    const over = await messages(BETA);
    expect(over.statusCode).toBe(403);
    expect(over.json()).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
    expect(over.json().error.message).toMatch(/^budget_exceeded/);
    const native = await send(app, BETA, 'b1');
    expect(native.statusCode).toBe(403);
    expect(native.json().error.code).toBe('budget_exceeded');
    // Another key is not held back by it.
    expect((await messages(ALPHA)).statusCode).toBe(200);

    const usage = await app.inject({ url: '/v1/keys/beta/usage', headers: as(BETA) });
    expect(usage.statusCode).toBe(200);
    const body = usage.json();
    expect(body).toMatchObject({
      key: 'beta',
      requests: 1,
      rejected: { budget: 2, rpm: 0, tpm: 0 },
    });
    expect(body.tokens.input + body.tokens.output).toBeGreaterThan(1);
    expect(body.spend.day.usd).toBe(body.costUsd);
    expect(body.costUsd).toBe(body.tokens.input + body.tokens.output);
    expect((await app.inject({ url: '/v1/keys/alpha/usage', headers: as(BETA) })).statusCode).toBe(
      404,
    );
    expect((await app.inject({ url: '/v1/keys/alpha/usage', headers: as(ADMIN) })).statusCode).toBe(
      200,
    );
    const all = await app.inject({ url: '/v1/keys', headers: as(BETA) });
    expect(all.json().keys.map((key: { key: string }) => key.key)).toEqual(['beta']);

    const metrics = (await app.inject({ url: '/metrics', headers: as(ADMIN) })).body;
    expect(metrics).toContain('keel_key_requests_total{key="beta"} 1');
    expect(metrics).toContain('keel_key_rejections_total{key="beta",reason="budget"} 2');
    expect(metrics).toMatch(/keel_key_cost_usd_total\{key="beta"\} [1-9]/);
  });

  it("reserves a request's max_tokens under tpm before it runs", async () => {
    const { app } = await startApp([{ id: 'alpha', secret: ALPHA, tpm: 1000 }]);
    const chat = (maxTokens: number) =>
      app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { ...as(ALPHA), 'content-type': 'application/json' },
        payload: {
          model: 'default',
          max_tokens: maxTokens,
          messages: [{ role: 'user', content: 'hi' }],
        },
      });
    expect((await chat(10)).statusCode).toBe(200);
    // The minute holds the first call's tokens: 2 000 more do not fit in 1 000.
    const refused = await chat(2000);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('rate_limit_exceeded');
    expect((await chat(10)).statusCode).toBe(200);
  });

  it('lets an admin key reach every session, key and route, within its own limits', async () => {
    const OPS = 'ops-secret-0001';
    const { app } = await startApp([...twoKeys, { id: 'ops', secret: OPS, admin: true, rpm: 1 }]);
    expect((await send(app, ALPHA, 'theirs')).statusCode).toBe(200);
    expect((await app.inject({ url: '/v1/sessions/theirs', headers: as(OPS) })).statusCode).toBe(
      200,
    );
    expect((await app.inject({ url: '/metrics', headers: as(OPS) })).statusCode).toBe(200);
    expect(
      (await app.inject({ url: '/v1/keys/alpha/usage', headers: as(OPS) })).json().requests,
    ).toBe(1);
    const all = await app.inject({ url: '/v1/keys', headers: as(OPS) });
    expect(all.json().keys.map((key: { key: string }) => key.key)).toEqual([
      'alpha',
      'beta',
      'ops',
    ]);
    expect((await send(app, OPS, 'theirs')).statusCode).toBe(200);
    expect((await send(app, OPS, 'theirs')).statusCode).toBe(429);
  });

  it('hides the models a key may not use', async () => {
    const { app } = await startApp(twoKeys);
    const models = await app.inject({ url: '/v1/models', headers: as(ALPHA) });
    expect(models.json().data.map((model: { id: string }) => model.id)).toEqual(['default']);
    const chat = await app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...as(ALPHA), 'content-type': 'application/json' },
      payload: { model: 'other', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(chat.statusCode).toBe(404);
    expect(chat.json().error.code).toBe('model_not_found');
    const select = await app.inject({
      method: 'PUT',
      url: '/v1/sessions/pick/model',
      headers: { ...as(ALPHA), 'content-type': 'application/json' },
      payload: { model: 'demo/keel-demo' },
    });
    expect(select.statusCode).toBe(403);
    const beta = await app.inject({ url: '/v1/models', headers: as(BETA) });
    expect(beta.json().data.map((model: { id: string }) => model.id)).toContain('other');
  });
});

describe('estimateTokens', () => {
  it('reserves the body at 4 bytes a token and the output it allows', () => {
    const body = { model: 'default', messages: [{ role: 'user', content: 'x'.repeat(100) }] };
    const size = Math.ceil(JSON.stringify(body).length / 4);
    expect(estimateTokens(body)).toBe(size);
    expect(estimateTokens({ ...body, max_tokens: 500 })).toBe(
      Math.ceil(JSON.stringify({ ...body, max_tokens: 500 }).length / 4) + 500,
    );
    const both = { ...body, max_tokens: 500, max_completion_tokens: 200 };
    expect(estimateTokens(both)).toBe(Math.ceil(JSON.stringify(both).length / 4) + 200);
    expect(estimateTokens(undefined)).toBe(0);
  });
});
