// Client keys in the console (issue 24): with the admin token, the Keys view lists every key with
// its requests, refusals, cost and spend against its cap, as `GET /v1/keys` reports them.
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { useAdminConsole } from './support/admin-console';

const SLOW = { timeout: 180_000 };
const ADMIN = 'keys-console-admin-token';
const WEB = 'keys-console-web-secret';
const CAPPED = 'keys-console-capped-secret';

const view = useAdminConsole({
  adminToken: ADMIN,
  providerId: 'kc',
  config: {
    models: {
      primary: 'kc/console-model',
      settings: { 'kc/console-model': { prices: { input: 1_000_000, output: 1_000_000 } } },
    },
    keys: [
      { id: 'web', secret: WEB, rpm: 100 },
      { id: 'capped', secret: CAPPED, spendCapUsd: { day: 1 } },
    ],
  },
  async traffic(gateway) {
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
  },
});

describe('the Keys view', () => {
  it('lists each key with its requests, refusals and spend against its cap', SLOW, async () => {
    const page = await view.open('#/keys');
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
