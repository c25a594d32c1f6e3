// Provider budgets in the console (issue 24): the Providers view's budget table shows, per provider
// profile and model, what is left of each limit against it, as `/v1/providers/health` reports it,
// and follows new requests without a reload.
import { describe, expect, it } from 'vitest';
import { useAdminConsole } from './support/admin-console';
import type { GatewayProcess } from './support/gateway-process';

const SLOW = { timeout: 180_000 };
const ADMIN = 'budgets-console-admin-token';
const MODEL = 'budget-console-model';

const send = async (gateway: GatewayProcess, sessionId: string) => {
  const answer = await fetch(`${gateway.url}/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'hello' }),
  });
  expect(answer.status).toBe(200);
};

const view = useAdminConsole({
  adminToken: ADMIN,
  providerId: 'bc',
  config: {
    models: { primary: `bc/${MODEL}` },
    // The window alone (burst = rpm, tpmBurst = tpm): the three messages go back to back.
    budgets: {
      limits: { [`bc/${MODEL}`]: { rpm: 5, burst: 5, tpm: 100_000, tpmBurst: 100_000 } },
    },
  },
  async traffic(gateway) {
    await send(gateway, 'budget-one');
    await send(gateway, 'budget-two');
  },
});

describe("the Providers view's budget table", () => {
  it('shows what is left of each limit, and follows new requests', SLOW, async () => {
    const page = await view.open('#/providers');
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
    await send(view.gateway, 'budget-three');
    await expect.poll(() => cell('rpm').textContent(), { timeout: 30_000 }).toBe('2 / 5');
    expect(await page.locator('[data-no-budgets]').count()).toBe(0);
    await page.close();
  });
});
