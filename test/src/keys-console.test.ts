// Client keys in the console (issue 24): with the admin token, the Keys view lists every key with
// its requests, refusals, cost and spend against its cap, as `GET /v1/keys` reports them.
import { createMockProvider, type MockProvider } from '@keel/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleBrowser, launchConsoleBrowser } from './support/console-browser';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';

const SLOW = { timeout: 180_000 };
const ADMIN = 'keys-console-admin-token';
const WEB = 'keys-console-web-secret';
const CAPPED = 'keys-console-capped-secret';

let mock: MockProvider;
let gateway: GatewayProcess;
let browser: ConsoleBrowser;

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startGateway({
    config: {
      server: { authToken: ADMIN },
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'kc',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keys-console' }],
        },
      ],
      models: {
        primary: 'kc/console-model',
        settings: { 'kc/console-model': { prices: { input: 1_000_000, output: 1_000_000 } } },
      },
      keys: [
        { id: 'web', secret: WEB, rpm: 100 },
        { id: 'capped', secret: CAPPED, spendCapUsd: { day: 1 } },
      ],
    },
  });
  browser = await launchConsoleBrowser();
  const client = (apiKey: string) =>
    new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const ask = (apiKey: string) =>
    client(apiKey).chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'hi' }],
    });
  await ask(WEB);
  await ask(CAPPED);
  await expect(ask(CAPPED)).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await mock?.close();
  if (gateway !== undefined) await removeDir(gateway.dir);
}, 60_000);

describe('the Keys view', () => {
  it('lists each key with its requests, refusals and spend against its cap', SLOW, async () => {
    const page = await browser.newPage();
    await page.goto(`${gateway.url}/console#/keys`);
    await page.fill('input[name="token"]', ADMIN);
    await page.click('button[type="submit"]');
    const web = page.locator('[data-keys] tr[data-key-id="web"]');
    const capped = page.locator('[data-keys] tr[data-key-id="capped"]');
    await web.waitFor();
    await capped.waitFor();
    expect(await web.locator('[data-key-requests]').textContent()).toBe('1');
    expect(await capped.locator('[data-key-requests]').textContent()).toBe('1');
    expect(await capped.locator('[data-key-rejected]').textContent()).toBe('0 / 0 / 1');
    expect(await capped.locator('[data-key-day]').textContent()).toMatch(/^\$[1-9][\d.]* \/ \$1$/);
    expect(await web.locator('[data-key-day]').textContent()).toMatch(/^\$[1-9][\d.]*$/);
    await page.close();
  });
});
