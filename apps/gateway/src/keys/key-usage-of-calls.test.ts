/**
 * A key's usage through the real app over the embedded demo model: a compatible call's end
 * corrects its own request's reservation (the call id is made in its handler, so it is found by
 * the handler's scope), and a compaction's model calls are charged to the key of the session.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayRuntime } from '../compose/create-runtime';
import { configSchema } from '../config/config-schema';
import { createApp } from '../http/create-app';

const SECRET = 'metered-secret-0001';
const TPM = 1_000_000;
const headers = { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' };

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function startApp(): Promise<FastifyInstance> {
  const root = await mkdtemp(join(tmpdir(), 'keel-key-usage-'));
  const config = configSchema.parse({
    sessionsDir: join(root, 'sessions'),
    providers: [{ id: 'demo', api: 'demo' }],
    models: {
      primary: 'demo/keel-demo',
      settings: { 'demo/keel-demo': { prices: { input: 1_000_000, output: 1_000_000 } } },
    },
    // Every message but the newest may be compacted.
    compaction: { keepRecentTokens: 1 },
    keys: [{ id: 'metered', secret: SECRET, tpm: TPM }],
  });
  const runtime = await createGatewayRuntime(config);
  const app = await createApp({ runtime, logger: false, state: { stopping: false } });
  cleanup.push(async () => {
    await app.close();
    await runtime.close();
    await rm(root, { recursive: true, force: true });
  });
  return app;
}

interface Usage {
  tokens: { input: number; output: number };
  costUsd: number;
  remaining: { tpm?: number };
}
const usageOf = async (app: FastifyInstance): Promise<Usage> =>
  (await app.inject({ url: '/v1/keys/metered/usage', headers })).json();

describe("a key's usage", () => {
  it("is corrected by a compatible call's own tokens, not its estimate", async () => {
    const app = await startApp();
    const answer = await app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers,
      // An estimate far above what the call uses.
      payload: {
        model: 'default',
        max_tokens: 50_000,
        messages: [{ role: 'user', content: 'hi' }],
      },
    });
    expect(answer.statusCode).toBe(200);
    await expect
      .poll(async () => {
        const usage = await usageOf(app);
        return TPM - (usage.remaining.tpm ?? 0) - usage.tokens.input - usage.tokens.output;
      })
      .toBe(0);
    expect((await usageOf(app)).tokens.input).toBeGreaterThan(0);
  });

  it("is corrected by a session message's own turn, matched by its session", async () => {
    const app = await startApp();
    const sent = await app.inject({
      method: 'POST',
      url: '/v1/sessions/own-turn/messages',
      headers,
      payload: { text: 'hello there' },
    });
    expect(sent.statusCode).toBe(200);
    const corrected = async () => {
      const usage = await usageOf(app);
      return TPM - (usage.remaining.tpm ?? 0) - usage.tokens.input - usage.tokens.output;
    };
    await expect.poll(corrected).toBe(0);
    // The turn's tokens differ from the body's estimate, so the check above can fail.
    const { tokens } = await usageOf(app);
    expect(tokens.input + tokens.output).not.toBe(Math.ceil('{"text":"hello there"}'.length / 4));
  });

  it("is charged a compaction's model calls, at the summarizer's prices", async () => {
    const app = await startApp();
    for (const text of ['first message here', 'second message here', 'third message here']) {
      const sent = await app.inject({
        method: 'POST',
        url: '/v1/sessions/compacted/messages',
        headers,
        payload: { text },
      });
      expect(sent.statusCode).toBe(200);
    }
    const before = await usageOf(app);
    const compacted = await app.inject({
      method: 'POST',
      url: '/v1/sessions/compacted/compact',
      headers,
      payload: {},
    });
    // The demo model's summary may fail validation: its calls were made (and cost) all the same.
    expect(compacted.statusCode, compacted.body).toBe(200);
    const after = await usageOf(app);
    const added =
      after.tokens.input + after.tokens.output - before.tokens.input - before.tokens.output;
    expect(added).toBeGreaterThan(0);
    // A dollar a token.
    expect(after.costUsd - before.costUsd).toBeCloseTo(added, 6);
  });
});
