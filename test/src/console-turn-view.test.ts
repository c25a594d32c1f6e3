// Issue 18's console fixes seen in a real browser, on a gateway of its own: every model it selects
// is configured (a model name long enough to fill the label column among them), and the tests run
// in order on one provider health, the last one leaving every candidate cooling.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockProvider, type MockProvider, mockFaults } from '@keel/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleBrowser, launchConsoleBrowser } from './support/console-browser';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { waitUntil } from './support/wait-until';

const SLOW = { timeout: 180_000 };
const LONG_MODEL = 'claude-primary-with-a-model-name-long-enough-to-fill-the-label-column';

let provider: MockProvider;
let gateway: GatewayProcess;
let browser: ConsoleBrowser;
let dir: string;

beforeAll(async () => {
  provider = await createMockProvider();
  dir = await mkdtemp(join(tmpdir(), 'keel-console-turn-'));
  const profiles = (...ids: string[]) => ids.map((id) => ({ id, apiKey: `sk-${id}` }));
  gateway = await startGateway({
    dir,
    config: {
      sessionsDir: join(dir, 'sessions'),
      providers: [
        {
          id: 'mock',
          api: 'anthropic-messages',
          baseUrl: provider.anthropicBaseUrl,
          profiles: profiles('key-a', 'key-b'),
        },
        {
          id: 'backup',
          api: 'anthropic-messages',
          baseUrl: provider.anthropicBaseUrl,
          profiles: profiles('main'),
        },
      ],
      models: {
        primary: 'mock/claude-main',
        fallbacks: ['backup/claude-backup'],
        settings: { [`mock/${LONG_MODEL}`]: {} },
      },
      shutdown: { graceMs: 1000 },
    },
  });
  browser = await launchConsoleBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await provider?.close();
  if (dir !== undefined) await removeDir(dir);
}, 60_000);

async function open(hash: string, before?: (page: Page) => void): Promise<Page> {
  const page = await browser.newPage();
  before?.(page);
  await page.goto(`${gateway.url}/console${hash}`);
  return page;
}

async function selectModel(sessionId: string, model: string): Promise<void> {
  const response = await gateway.fetch(`/v1/sessions/${sessionId}/model`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model }),
  });
  expect(response.status).toBe(200);
}

async function errorTotal(): Promise<number> {
  const rates = (await (await gateway.fetch('/v1/stats/rates?minutes=15')).json()) as {
    buckets: Array<{ errors: number }>;
  };
  return rates.buckets.reduce((sum, bucket) => sum + bucket.errors, 0);
}

describe("the console's turn view and charts (issue 18)", () => {
  it(
    'loads a new session once (one 404 each), then shows its first turn with its token usage',
    SLOW,
    async () => {
      const sessionId = 'fresh-1';
      const loads: string[] = [];
      const notFound: string[] = [];
      const page = await open(`#/sessions/${sessionId}`, (tab) => {
        tab.on('request', (request) => {
          const path = new URL(request.url()).pathname;
          if (path.startsWith(`/v1/sessions/${sessionId}`) && !path.endsWith('/events'))
            loads.push(path);
        });
        tab.on('response', (response) => {
          if (response.status() === 404) notFound.push(new URL(response.url()).pathname);
        });
      });
      await page.waitForSelector('[data-empty]');
      await page.waitForSelector(`[data-session="${sessionId}"][data-events="live"]`);
      // Whatever the stream's opening set off has run: its timers, a render, its effects.
      await page.evaluate(
        'new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 0))))',
      );
      expect(loads.sort()).toEqual([
        `/v1/sessions/${sessionId}`,
        `/v1/sessions/${sessionId}/transcript`,
      ]);
      expect(notFound.sort()).toEqual(loads);

      provider.enqueue({
        behavior: { type: 'ok', text: 'Hello there.', usage: { inputTokens: 31, outputTokens: 9 } },
        match: { model: 'claude-main' },
      });
      const answer = await sendMessage(gateway, sessionId, { text: 'hello' });
      expect(answer.body).toMatchObject({ outcome: 'reply', model: 'mock/claude-main' });
      const usage = page.locator('[data-turn][data-outcome="reply"] [data-turn-usage]');
      await usage.waitFor();
      // The Anthropic wire always reports its cache counts, here none.
      expect(await usage.textContent()).toBe('Tokens: 31 in (0 cache read, 0 cache write) · 9 out');
      await page.close();
    },
  );

  it(
    'shows bidirectional overrides and control characters in text as code points',
    SLOW,
    async () => {
      const sessionId = 'bidi-1';
      provider.enqueue({
        behavior: { type: 'ok', text: 'reply \u202Etxt.exe\u202C done' },
        match: { model: 'claude-main' },
      });
      const answer = await sendMessage(gateway, sessionId, {
        text: 'open invoice\u202Efdp.exe\u001b[2J',
      });
      expect(answer.body).toMatchObject({ outcome: 'reply' });
      const page = await open(`#/sessions/${sessionId}`);
      const texts = page.locator('[data-entry] p.text');
      await texts.nth(1).waitFor({ timeout: 60_000 });
      const shown = await texts.allTextContents();
      expect(shown).toContain('open invoice⟨U+202E⟩fdp.exe⟨U+001B⟩[2J');
      expect(shown).toContain('reply ⟨U+202E⟩txt.exe⟨U+202C⟩ done');
      expect(shown.join('')).not.toMatch(/[\u202a-\u202e\u001b]/);
      await page.close();
    },
  );

  it('plots the count of each bucket, as the rates API gives it', SLOW, async () => {
    const page = await open('#/providers');
    const chart = page.locator('[data-chart="requests"]:not([data-total="0"])');
    await chart.waitFor();
    const rates = (await (await gateway.fetch('/v1/stats/rates?minutes=15')).json()) as {
      bucketMs: number;
      buckets: Array<{ requests: number }>;
    };
    const peak = Math.max(...rates.buckets.map((bucket) => bucket.requests));
    expect(peak).toBeGreaterThan(0);
    expect(await chart.getAttribute('data-peak')).toBe(String(peak));
    expect(await chart.locator('figcaption').textContent()).toContain(
      `per ${rates.bucketMs / 1000} s`,
    );
    await page.close();
  });

  it('keeps the probe badge of a long attempt label in view', SLOW, async () => {
    const sessionId = 'long-label-1';
    await selectModel(sessionId, `mock/${LONG_MODEL}`);
    // A retry-after past retry.maxWaitMs opens the model's breaker; the next request probes it.
    const overloaded = { ...mockFaults.overloaded(), headers: { 'retry-after': '12' } };
    provider.enqueue({ behavior: overloaded, match: { model: LONG_MODEL } });
    const first = await sendMessage(gateway, sessionId, { text: 'first' });
    expect(first.body).toMatchObject({ outcome: 'reply' });
    expect(first.body['model']).not.toBe(`mock/${LONG_MODEL}`);
    await waitUntil('the breaker to turn half-open', async () => {
      const health = (await (await gateway.fetch('/v1/providers/health')).json()) as {
        breakers: Array<{ model: string; state: string }>;
      };
      return health.breakers.some((b) => b.model === LONG_MODEL && b.state === 'half-open');
    });
    provider.enqueue({ behavior: { type: 'ok', text: 'Back.' }, match: { model: LONG_MODEL } });
    const second = await sendMessage(gateway, sessionId, { text: 'second' });
    expect(second.body).toMatchObject({ outcome: 'reply', model: `mock/${LONG_MODEL}` });

    const page = await open(`#/sessions/${sessionId}`);
    const row = page.locator('[data-timeline] [data-attempt]', {
      has: page.locator('.tag', { hasText: 'probe' }),
    });
    await row.waitFor();
    const label = await row.locator('.label').boundingBox();
    const badge = await row.locator('.label .tag', { hasText: 'probe' }).boundingBox();
    expect(label).not.toBeNull();
    expect(badge).not.toBeNull();
    if (label === null || badge === null) return;
    // The badge sits whole inside the label column, which hides what overflows it.
    expect(badge.width).toBeGreaterThan(10);
    expect(badge.x).toBeGreaterThanOrEqual(label.x);
    expect(badge.x + badge.width).toBeLessThanOrEqual(label.x + label.width + 0.5);
    // The model name is what gives way (an ellipsis).
    const clipped = await row
      .locator('.label .target')
      .evaluate((element) => element.scrollWidth > element.clientWidth);
    expect(clipped).toBe(true);
    await page.close();
  });

  it(
    'a turn that found every candidate cooling: says so with retryAfterMs, names no model, shows each skip decision, counts in the error chart',
    SLOW,
    async () => {
      const sessionId = 'cooling-1';
      // Every key of every model answers 429 with a retry-after past retry.maxWaitMs: all cool.
      const limited = mockFaults.rateLimited({ retryAfterSeconds: 60 });
      provider.enqueue({ behavior: limited, times: 3 });
      const tried = await sendMessage(gateway, sessionId, { text: 'one' });
      expect(tried.body).toMatchObject({ outcome: 'error', errorKind: 'rate_limit' });
      const before = provider.requests.length;
      const errorsBefore = await errorTotal();
      const cooling = await sendMessage(gateway, sessionId, { text: 'two' });
      expect(cooling.body).toMatchObject({ outcome: 'error' });
      expect(cooling.body['retryAfterMs']).toEqual(expect.any(Number));
      expect(provider.requests.length).toBe(before);

      const page = await open(`#/sessions/${sessionId}`);
      const turn = page.locator(`[data-turn="${cooling.body['turnId']}"]`);
      await turn.locator('[data-timeline] [data-attempt-outcome="skipped"]').first().waitFor();
      expect(await turn.locator('[data-cooling]').textContent()).toMatch(
        /^Every candidate was cooling .*\(retryAfterMs \d+\)\.$/,
      );
      expect(await turn.locator('header [data-turn-model]').count()).toBe(0);
      const rows = await turn.locator('[data-timeline] [data-attempt]').evaluateAll((elements) =>
        elements.map((row) => ({
          outcome: row.getAttribute('data-attempt-outcome'),
          decision: row.querySelector('[data-decision]')?.getAttribute('data-decision') ?? null,
          text: row.querySelector('.facts')?.textContent ?? '',
        })),
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.outcome).toBe('skipped');
        expect(row.decision).not.toBeNull();
        expect(row.text).toContain('cooling');
      }
      expect(rows.at(-1)?.decision).toBe('final');
      await page.close();

      // No attempt failed, yet the turn did: the Errors chart counts it.
      const providers = await open('#/providers');
      await providers.locator(`[data-chart="errors"][data-total="${errorsBefore + 1}"]`).waitFor();
      await providers.close();
    },
  );
});
