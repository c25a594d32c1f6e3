import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleFixture, startConsoleFixture } from './support/console-fixture';
import { sendMessage } from './support/gateway-process';

const TOKEN = 'console-secret-token';
const SLOW = { timeout: 180_000 };
let fixture: ConsoleFixture;

beforeAll(async () => {
  fixture = await startConsoleFixture({ authToken: TOKEN });
  const answer = await sendMessage(
    fixture.gateway,
    'guarded-1',
    { text: 'only for token holders' },
    fixture.headers,
  );
  expect(answer.body).toMatchObject({ outcome: 'reply' });
}, 180_000);
afterAll(async () => {
  await fixture?.close();
}, 60_000);

/** The API requests a page makes (not the console's own files), with their answers. */
function recordApi(page: Page) {
  const requests: Array<{ request: Request; status: () => Promise<number | undefined> }> = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin !== fixture.gateway.url || url.pathname.startsWith('/console')) return;
    requests.push({
      request,
      status: async () => (await request.response())?.status(),
    });
  });
  return requests;
}

describe('the console behind a bearer token', () => {
  it(
    'without the token: the page asks for it and sends no API request; the API says 401',
    SLOW,
    async () => {
      const page = await fixture.browser.newPage();
      const api = recordApi(page);
      await page.goto(`${fixture.gateway.url}/console#/sessions/guarded-1`);
      await page.waitForSelector('[data-token-form]');
      expect(await page.locator('[data-transcript], [data-sessions]').count()).toBe(0);
      expect(await page.textContent('body')).not.toContain('only for token holders');
      expect(api.map(({ request }) => request.url())).toEqual([]);
      // The data itself stays behind the token, whoever asks.
      const status = await page.evaluate(async () => (await fetch('/v1/sessions')).status);
      expect(status).toBe(401);
      const stream = await page.evaluate(async () => (await fetch('/v1/events?follow=1')).status);
      expect(stream).toBe(401);
      await page.close();
    },
  );

  it('with a wrong token: refused, nothing shown', SLOW, async () => {
    const page = await fixture.browser.newPage();
    const api = recordApi(page);
    await page.goto(`${fixture.gateway.url}/console#/`);
    await page.fill('input[name="token"]', 'not-the-token');
    await page.click('button[type="submit"]');
    await page.waitForSelector('[data-token-form] [role="alert"]');
    expect(await page.locator('[data-sessions]').count()).toBe(0);
    const answered = (await Promise.all(api.map(({ status }) => status()))).filter(
      (code) => code !== undefined,
    );
    expect(answered.length).toBeGreaterThan(0);
    expect(new Set(answered)).toEqual(new Set([401]));
    await page.close();
  });

  it(
    'with the token: sessions, a session and provider health load, every request carrying it',
    SLOW,
    async () => {
      const { page } = await fixture.open('#/', { token: TOKEN });
      const api = recordApi(page);
      await page.waitForSelector('[data-session-id="guarded-1"] [data-outcome="reply"]');
      await page.click('[data-session-id="guarded-1"] a');
      await page
        .locator('[data-role="user"] .text', { hasText: 'only for token holders' })
        .waitFor();
      await page.waitForSelector('[data-timeline] [data-attempt="1"]');
      await page.click('a[href="#/providers"]');
      await page.waitForSelector('[data-breaker="mock/claude-main"][data-state="closed"]');

      // A page reload keeps the token for this tab.
      await page.reload();
      await page.waitForSelector('[data-breakers]');
      await page.waitForSelector('[data-stream="live"]');

      expect(api.length).toBeGreaterThan(3);
      for (const { request } of api) {
        expect(request.headers()['authorization'], request.url()).toBe(`Bearer ${TOKEN}`);
      }
      for (const { request, status } of api) {
        const code = await status();
        // Streams still open at the end have no final status yet; every answer was allowed.
        if (code !== undefined) expect(code, request.url()).toBe(200);
      }
      await page.close();
    },
  );
});
