// Provider budgets in the console (issue 24): the Providers view's budget table shows, per provider
// profile and model, what is left of each limit against it, as `/v1/providers/health` reports it,
// and follows new requests without a reload.
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleBrowser, launchConsoleBrowser } from './support/console-browser';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';

const SLOW = { timeout: 180_000 };
const ADMIN = 'budgets-console-admin-token';
const MODEL = 'budget-console-model';

let mock: MockProvider;
let gateway: GatewayProcess;
let browser: ConsoleBrowser;

const send = async (sessionId: string) => {
  const answer = await fetch(`${gateway.url}/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'hello' }),
  });
  expect(answer.status).toBe(200);
};

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startGateway({
    config: {
      server: { authToken: ADMIN },
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'bc',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-budgets-console' }],
        },
      ],
      models: { primary: `bc/${MODEL}` },
      budgets: { limits: { [`bc/${MODEL}`]: { rpm: 5, tpm: 100_000 } } },
    },
  });
  browser = await launchConsoleBrowser();
  await send('budget-one');
  await send('budget-two');
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await mock?.close();
  if (gateway !== undefined) await removeDir(gateway.dir);
}, 60_000);

describe("the Providers view's budget table", () => {
  it('shows what is left of each limit, and follows new requests', SLOW, async () => {
    const page = await browser.newPage();
    await page.goto(`${gateway.url}/console#/providers`);
    await page.fill('input[name="token"]', ADMIN);
    await page.click('button[type="submit"]');
    const row = page.locator(`[data-budgets] tr[data-budget="bc/${MODEL}#main"]`);
    await row.waitFor();
    const cell = (limit: string) => row.locator(`[data-limit="${limit}"]`);
    expect(await cell('rpm').textContent()).toBe('3 / 5');
    const tpm = (await cell('tpm').textContent()) ?? '';
    expect(tpm).toMatch(/^\d+ \/ 100000$/);
    // Two calls' reported tokens are gone from the minute, and no more than they could be.
    const left = Number(tpm.split(' / ')[0]);
    expect(left).toBeLessThan(100_000);
    expect(left).toBeGreaterThan(90_000);
    expect(await cell('tpd').textContent()).toBe('–');
    await send('budget-three');
    await expect.poll(() => cell('rpm').textContent(), { timeout: 30_000 }).toBe('2 / 5');
    expect(await page.locator('[data-no-budgets]').count()).toBe(0);
    await page.close();
  });
});
