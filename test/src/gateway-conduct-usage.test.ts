// Usage and cost on every answer (issue 18), through the built gateway over the loopback mock
// provider: the JSON answer and the SSE `outcome` carry `usage` and, when the answering model has
// prices, `costUsd`; the metrics count tokens and cost; the reported model is the one that
// answered. And a session can select only a configured model: anything else is a 400.
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from './support/expect-api-error';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { scrapeMetrics } from './support/scrape-metrics';
import { parseSse } from './support/sse-events';

let mock: MockProvider;
let gateway: GatewayProcess;

const PRICES_A = { input: 3, output: 15 };
const PRICES_O = { input: 0.5, output: 2 };

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'us-a',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-usage-a' }],
        },
        {
          id: 'us-o',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-usage-o' }],
        },
      ],
      models: {
        primary: 'us-a/usage-a',
        fallbacks: ['us-o/usage-o'],
        settings: {
          'us-a/usage-a': { prices: PRICES_A },
          'us-o/usage-o': { prices: PRICES_O },
          'us-a/unpriced': { contextWindowTokens: 100_000 },
        },
      },
      retry: { maxRetries: 0 },
      health: { minFailures: 10 },
    },
  });
});
afterAll(async () => {
  await gateway?.stop();
  await mock?.close();
  if (gateway !== undefined) await removeDir(gateway.dir);
});

const scrape = () => scrapeMetrics(gateway);

const tokens = (provider: string, model: string, type: string) =>
  `keel_tokens_total{provider="${provider}",model="${model}",type="${type}"}`;
const cost = (provider: string, model: string) =>
  `keel_cost_usd_total{provider="${provider}",model="${model}"}`;
const perMillion = (
  usage: { inputTokens: number; outputTokens: number },
  prices: typeof PRICES_A,
) => (usage.inputTokens * prices.input + usage.outputTokens * prices.output) / 1e6;

async function select(sessionId: string, model: string) {
  const response = await gateway.fetch(`/v1/sessions/${sessionId}/model`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model }),
  });
  return { status: response.status, text: await response.text() };
}

describe('usage and cost on the answer', () => {
  it('JSON: the primary answer carries usage and costUsd; the metrics count both', async () => {
    const usage = { inputTokens: 1200, outputTokens: 300 };
    mock.enqueue({ behavior: { type: 'ok', text: 'priced', usage }, match: { model: 'usage-a' } });
    const before = await scrape();
    const answer = await sendMessage(gateway, 'usage-json', { text: 'hello' });
    expect(answer.body).toMatchObject({
      outcome: 'reply',
      text: 'priced',
      model: 'us-a/usage-a',
      provider: 'us-a',
      usage,
    });
    expect(answer.body['costUsd']).toBeCloseTo(perMillion(usage, PRICES_A), 12);
    const after = await scrape();
    const delta = (series: string) => (after.get(series) ?? 0) - (before.get(series) ?? 0);
    expect(delta(tokens('us-a', 'usage-a', 'input'))).toBe(1200);
    expect(delta(tokens('us-a', 'usage-a', 'output'))).toBe(300);
    expect(delta(cost('us-a', 'usage-a'))).toBeCloseTo(perMillion(usage, PRICES_A), 12);
  });

  it('SSE: after a fallback, the outcome event names the model that answered, with its usage and cost', async () => {
    const usage = { inputTokens: 800, outputTokens: 100 };
    mock.enqueue(
      { behavior: { type: 'http-error', status: 500 }, match: { model: 'usage-a' } },
      { behavior: { type: 'ok', text: 'from the fallback', usage }, match: { model: 'usage-o' } },
    );
    const before = await scrape();
    const response = await gateway.fetch('/v1/sessions/usage-sse/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ text: 'hello' }),
    });
    const events = parseSse(await response.text());
    const outcome = events.at(-1);
    expect(outcome?.event).toBe('outcome');
    expect(outcome?.data).toMatchObject({
      outcome: 'reply',
      text: 'from the fallback',
      model: 'us-o/usage-o',
      provider: 'us-o',
      usage,
    });
    expect((outcome?.data as { costUsd?: number } | undefined)?.costUsd).toBeCloseTo(
      perMillion(usage, PRICES_O),
      12,
    );
    const after = await scrape();
    const delta = (series: string) => (after.get(series) ?? 0) - (before.get(series) ?? 0);
    expect(delta(tokens('us-o', 'usage-o', 'input'))).toBe(800);
    expect(delta(tokens('us-o', 'usage-o', 'output'))).toBe(100);
    expect(delta(tokens('us-a', 'usage-a', 'input'))).toBe(0);
  });

  it('a repeated clientMessageId answers the stored outcome with the same usage and cost', async () => {
    const usage = { inputTokens: 400, outputTokens: 40 };
    mock.enqueue({ behavior: { type: 'ok', text: 'once', usage }, match: { model: 'usage-a' } });
    const first = await sendMessage(gateway, 'usage-replay', { text: 'hi', clientMessageId: 'c1' });
    const again = await sendMessage(gateway, 'usage-replay', { text: 'hi', clientMessageId: 'c1' });
    expect(first.body).toMatchObject({ outcome: 'reply', text: 'once', usage });
    expect(first.body['costUsd']).toBeCloseTo(perMillion(usage, PRICES_A), 12);
    expect(again.body).toEqual(first.body);
  });

  it('a model without prices: usage, no costUsd, no cost counted', async () => {
    expect((await select('usage-unpriced', 'us-a/unpriced')).status).toBe(200);
    const usage = { inputTokens: 50, outputTokens: 5 };
    mock.enqueue({ behavior: { type: 'ok', text: 'free', usage }, match: { model: 'unpriced' } });
    const answer = await sendMessage(gateway, 'usage-unpriced', { text: 'hello' });
    expect(answer.body).toMatchObject({ outcome: 'reply', model: 'us-a/unpriced', usage });
    expect(answer.body).not.toHaveProperty('costUsd');
    const metrics = await scrape();
    expect(metrics.get(tokens('us-a', 'unpriced', 'input'))).toBe(50);
    expect(metrics.has(cost('us-a', 'unpriced'))).toBe(false);
  });
});

describe('PUT /v1/sessions/:id/model', () => {
  it('400 for a model that is not configured, naming it; nothing is stored', async () => {
    const refused = await select('usage-select', 'us-a/not-configured');
    expectApiError(refused.status, refused.text, 400, 'invalid_request');
    expect(refused.text).toContain('us-a/not-configured');
    expect(refused.text).toContain('is not configured');
    expect((await gateway.fetch('/v1/sessions/usage-select')).status).toBe(404);
  });

  it('200 for the primary, a fallback and a models.settings key', async () => {
    for (const model of ['us-a/usage-a', 'us-o/usage-o', 'us-a/unpriced']) {
      expect(await select('usage-select-ok', model)).toMatchObject({ status: 200 });
    }
  });
});
