/**
 * Provider health shared by two gateways over one database, end to end: gateway A gives up on an
 * overloaded model, and gateway B skips that model without a request; once its cooldown is over,
 * one half-open probe goes out across both gateways — while A's probe is in flight, B does not
 * send a second one. Each gateway talks to its own mock provider, so each request is known to
 * come from the gateway that sent it.
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import { createMockProvider, type MockProvider, mockFaults } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { sendMessage } from './support/gateway-process';
import { useGateways } from './support/use-gateways';

const database = useTestDatabase();
const group = useGateways();

const PRIMARY = 'shared-primary';

function config(mock: MockProvider) {
  return {
    providers: [
      {
        id: 'anthropic',
        api: 'anthropic-messages',
        baseUrl: mock.anthropicBaseUrl,
        profiles: [
          { id: 'k1', apiKey: 'key-1' },
          { id: 'k2', apiKey: 'key-2' },
        ],
      },
      {
        id: 'openai',
        api: 'openai-chat',
        baseUrl: mock.openaiBaseUrl,
        profiles: [{ id: 'o1', apiKey: 'key-o' }],
      },
    ],
    models: { primary: `anthropic/${PRIMARY}`, fallbacks: ['openai/shared-fallback'] },
    storage: { kind: 'postgres', url: database.url },
    turn: { firstTokenTimeoutMs: 600_000 },
    logging: { level: 'info' },
  };
}

const modelsAsked = (mock: MockProvider) =>
  mock.requests.filter((request) => request.api !== 'other').map((request) => request.model);

describe('provider health shared by the gateways on one database', () => {
  it('one gateway’s overload opens the breaker for all; one half-open probe across all', async () => {
    // Overloaded, retry in five minutes: a retry-after past retry.maxWaitMs opens the breaker at
    // once (evidence enough), for the cap of 30 s — still far longer than the test needs.
    const overloaded = {
      behavior: { ...mockFaults.overloaded(), headers: { 'retry-after': '300' } },
      match: { model: PRIMARY },
    };
    const providerA = await createMockProvider({
      script: [overloaded, { behavior: { type: 'hang' }, match: { model: PRIMARY } }],
    });
    const providerB = await createMockProvider();
    group.defer(() => Promise.all([providerA.close(), providerB.close()]));
    const a = await group.start({ config: config(providerA) });
    const b = await group.start({ config: config(providerB) });

    const first = await sendMessage(a, 'health-1', { text: 'hello' });
    expect(first.body).toMatchObject({ outcome: 'reply', model: 'openai/shared-fallback' });
    // The open breaker holds the second key back too (a skipped attempt): one primary request.
    expect(modelsAsked(providerA)).toEqual([PRIMARY, 'shared-fallback']);
    const opened = await a.waitForLog(
      (line) =>
        line['msg'] === 'provider health changed' &&
        (line['health'] as { to?: string; model?: string }).model === PRIMARY &&
        (line['health'] as { to?: string }).to === 'open',
    );
    const openFor = Number((opened['health'] as { until: number }).until) - Number(opened['time']);
    expect(openFor).toBeGreaterThan(20_000);
    expect(openFor).toBeLessThanOrEqual(31_000);

    // B never asked the primary: A's overload opened its breaker for every gateway.
    const second = await sendMessage(b, 'health-2', { text: 'hello from elsewhere' });
    expect(second.body).toMatchObject({ outcome: 'reply', model: 'openai/shared-fallback' });
    expect(modelsAsked(providerB)).toEqual(['shared-fallback']);

    // The cooldown is over (as if its time had passed): the breaker lets one probe through.
    await database.query(`UPDATE keel.health_breakers SET open_until = 0 WHERE model = $1`, [
      PRIMARY,
    ]);
    const probing = sendMessage(a, 'health-3', { text: 'probe, please' }).catch(() => undefined);
    await providerA.waitForRequests(3); // A's probe is on its way (and hangs)
    expect(modelsAsked(providerA).at(-1)).toBe(PRIMARY);
    const third = await sendMessage(b, 'health-4', { text: 'and me?' });
    expect(third.body).toMatchObject({ outcome: 'reply', model: 'openai/shared-fallback' });
    expect(modelsAsked(providerB)).toEqual(['shared-fallback', 'shared-fallback']);

    await providerA.close(); // the probe fails: the breaker opens again
    await probing;
    for (const gateway of [a, b]) expect(await gateway.stop('SIGTERM')).toBe(0);
  });
});
