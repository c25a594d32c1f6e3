/**
 * Provider health shared by two gateways over one database, end to end: gateway A gives up on an
 * overloaded model, and gateway B skips that model without a request; once its cooldown is over,
 * one half-open probe goes out across both gateways — while A's probe is in flight, B does not
 * send a second one. Each gateway talks to its own mock provider, so each request is known to
 * come from the gateway that sent it.
 *
 * Nothing here races the clock: the breaker's open period is checked against the times taken
 * before the overload was sent and after it was logged, then the test moves the breaker's end in
 * the database (as if no time, then all of it, had passed), so a slow machine cannot end the open
 * period early; the test's own time limit is that of a run with several gateway starts under load.
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
    // A's probe holds the half-open slot until it fails, not for a minute only: B's request
    // during it is skipped however long B takes to send it.
    health: { probeTimeoutMs: 3_600_000 },
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
    const [a, b] = await Promise.all([
      group.start({ config: config(providerA) }),
      group.start({ config: config(providerB) }),
    ]);

    const sentAt = Date.now();
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
    // Open for the cap, 30 s from when it opened (the database's clock, this machine's): after the
    // overload was sent, before the change was logged — however long either took under load.
    const until = Number((opened['health'] as { until: number }).until);
    expect(until - sentAt).toBeGreaterThanOrEqual(30_000);
    expect(until - Number(opened['time'])).toBeLessThanOrEqual(30_000);
    // The cap checked, the breaker stays open for the rest of the test (as if no time passed).
    await database.query(`UPDATE keel.health_breakers SET open_until = $2 WHERE model = $1`, [
      PRIMARY,
      until + 3_600_000,
    ]);

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
  }, 300_000);
});
