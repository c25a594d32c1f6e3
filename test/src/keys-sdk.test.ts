/**
 * Client keys on the built gateway, driven by the real `openai` and `@anthropic-ai/sdk` clients
 * and plain HTTP on the session API: every API authenticates a key (`Authorization: Bearer` or
 * `x-api-key`); a key sees only its models and its sessions; past its `rpm` a key gets `429` with
 * `Retry-After`, past its spend cap `403 budget_exceeded`, each in the client's own error class;
 * its usage is in `GET /v1/keys/:id/usage` and the metrics; no secret reaches the log; and an
 * empty secret stops start-up.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { createMockProvider, type MockProvider } from '@keel/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';
import { runCli } from './support/run-cli';

const ADMIN = 'keys-admin-token-7f3a';
const SECRETS = {
  app: 'keys-app-secret-91c2',
  other: 'keys-other-secret-4b8e',
  slow: 'keys-slow-secret-2d6f',
  capped: 'keys-capped-secret-c05a',
};

let mock: MockProvider;
let gateway: GatewayProcess;

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startGateway({
    env: { KEYS_APP_SECRET: SECRETS.app },
    config: {
      server: { authToken: ADMIN },
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'ka',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keys-upstream-a' }],
        },
      ],
      models: {
        primary: 'ka/main-model',
        // A dollar per token: any answer is over the capped key's cap.
        settings: {
          'ka/main-model': { prices: { input: 1_000_000, output: 1_000_000 } },
          'ka/other-model': { prices: { input: 1_000_000, output: 1_000_000 } },
        },
      },
      routes: { fast: { primary: 'ka/main-model' }, wide: { primary: 'ka/other-model' } },
      retry: { maxRetries: 0 },
      keys: [
        // The secret from the environment, as every other secret.
        { id: 'app', secret: `\${KEYS_APP_SECRET}`, models: ['default', 'fast'] },
        { id: 'other', secret: SECRETS.other },
        { id: 'slow', secret: SECRETS.slow, rpm: 1 },
        { id: 'capped', secret: SECRETS.capped, spendCapUsd: { day: 0.5 } },
      ],
    },
  });
});
afterAll(async () => {
  await gateway?.stop();
  await mock?.close();
  if (gateway !== undefined) await removeDir(gateway.dir);
});

const openai = (apiKey: string) =>
  new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
const anthropic = (apiKey: string) =>
  new Anthropic({ apiKey, baseURL: gateway.url, maxRetries: 0 });
const chat = (client: OpenAI, model = 'default') =>
  client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] });
const messages = (client: Anthropic, model = 'default') =>
  client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hello' }] });
const caught = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as { status?: number; headers?: Headers; error?: unknown; code?: unknown };
  }
  throw new Error('expected the call to fail');
};

describe('client keys, with the real SDKs', () => {
  it('authenticates the OpenAI wire and shows a key only its models', async () => {
    const answer = await chat(openai(SECRETS.app));
    expect(answer.choices[0]?.message.content).toBeTruthy();
    const models = await openai(SECRETS.app).models.list();
    expect(models.data.map((model) => model.id)).toEqual(['default', 'fast']);
    const wrong = await caught(chat(openai('keys-wrong-secret-0000')));
    expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError);
    const hidden = await caught(chat(openai(SECRETS.app), 'wide'));
    expect(hidden).toBeInstanceOf(OpenAI.NotFoundError);
    expect(hidden.code).toBe('model_not_found');
    expect((await openai(SECRETS.other).models.list()).data.map((model) => model.id)).toContain(
      'wide',
    );
  });

  it('authenticates the Anthropic wire by x-api-key and by Bearer', async () => {
    const answer = await messages(anthropic(SECRETS.app));
    expect(answer.content[0]?.type).toBe('text');
    const bearer = new Anthropic({ authToken: SECRETS.app, baseURL: gateway.url, maxRetries: 0 });
    expect((await messages(bearer)).content.length).toBeGreaterThan(0);
    expect(await caught(messages(anthropic('keys-wrong-secret-0000')))).toBeInstanceOf(
      Anthropic.AuthenticationError,
    );
    expect(await caught(messages(anthropic(SECRETS.app), 'wide'))).toBeInstanceOf(
      Anthropic.NotFoundError,
    );
  });

  it('keeps a session to the key that created it', async () => {
    const post = (headers: Record<string, string>) =>
      gateway.fetch('/v1/sessions/keys-owned/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ text: 'hello' }),
      });
    expect((await post({ authorization: `Bearer ${SECRETS.app}` })).status).toBe(200);
    expect((await post({ 'x-api-key': SECRETS.app })).status).toBe(200);
    const foreign = await post({ 'x-api-key': SECRETS.other });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const read = (secret: string) =>
      gateway.fetch('/v1/sessions/keys-owned/transcript', {
        headers: { authorization: `Bearer ${secret}` },
      });
    expect((await read(SECRETS.other)).status).toBe(404);
    expect((await read(SECRETS.app)).status).toBe(200);
    expect((await read(ADMIN)).status).toBe(200);
    expect((await gateway.fetch('/v1/sessions/keys-owned/transcript')).status).toBe(401);
  });

  it('answers 429 with Retry-After past rpm, as each SDK expects', async () => {
    await chat(openai(SECRETS.slow));
    const limited = await caught(chat(openai(SECRETS.slow)));
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    const wait = Number(limited.headers?.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(61);
    const anthropicLimited = await caught(messages(anthropic(SECRETS.slow)));
    expect(anthropicLimited).toBeInstanceOf(Anthropic.RateLimitError);
    expect(anthropicLimited.headers?.get('retry-after')).toBeTruthy();
  });

  it('answers 403 budget_exceeded once the daily cap is spent, and reports the usage', async () => {
    await chat(openai(SECRETS.capped));
    const over = await caught(chat(openai(SECRETS.capped)));
    expect(over).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(over.code).toBe('budget_exceeded');
    const anthropicOver = await caught(messages(anthropic(SECRETS.capped)));
    expect(anthropicOver).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(JSON.stringify(anthropicOver.error)).toContain('budget_exceeded');

    const usage = await gateway.fetch('/v1/keys/capped/usage', {
      headers: { authorization: `Bearer ${SECRETS.capped}` },
    });
    const body = (await usage.json()) as {
      requests: number;
      costUsd: number;
      rejected: { budget: number };
      spend: { day: { usd: number } };
    };
    expect(body.requests).toBe(1);
    expect(body.rejected.budget).toBe(2);
    expect(body.costUsd).toBeGreaterThan(0.5);
    expect(body.spend.day.usd).toBe(body.costUsd);
    const foreign = await gateway.fetch('/v1/keys/capped/usage', {
      headers: { authorization: `Bearer ${SECRETS.other}` },
    });
    expect(foreign.status).toBe(404);
    const metrics = await (
      await gateway.fetch('/metrics', { headers: { authorization: `Bearer ${ADMIN}` } })
    ).text();
    expect(metrics).toContain('keel_key_rejections_total{key="capped",reason="budget"} 2');
    expect(metrics).toMatch(/keel_key_spend_usd\{key="capped",period="day"\} [1-9]/);
    const forbidden = await gateway.fetch('/metrics', {
      headers: { authorization: `Bearer ${SECRETS.capped}` },
    });
    expect(forbidden.status).toBe(403);
  });

  it('never writes a key secret to the log', () => {
    const output = gateway.output();
    for (const secret of [...Object.values(SECRETS), ADMIN]) expect(output).not.toContain(secret);
  });
});

describe('a key with an empty secret', () => {
  it('stops start-up, naming the key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keel-keys-empty-'));
    const path = join(dir, 'keel.config.json');
    await writeFile(
      path,
      JSON.stringify({
        providers: [{ id: 'demo', api: 'demo' }],
        models: { primary: 'demo/keel-demo' },
        keys: [{ id: 'app', secret: `\${KEYS_EMPTY_SECRET:-}` }],
      }),
    );
    const run = await runCli(['--config', path], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('keys.0.secret');
    await removeDir(dir);
  });
});
