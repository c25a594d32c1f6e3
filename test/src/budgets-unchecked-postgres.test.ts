// A provider budget whose ledger fails to answer (issue 24's fail-open rule, made visible): the
// gateway over PostgreSQL still answers, the request goes upstream unbudgeted, a warning names the
// database's error, and `keel_budget_unchecked_total` counts it — so a shared limit is never
// passed silently. The failure is real: the schema's `budget_reserve` function is renamed away
// under the running gateway, then back.
import { useTestDatabase } from '@keel/postgres-test-server';
import { createMockProvider } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { removeDir } from './support/gateway-process';
import { metricTotal, scrapeMetrics } from './support/scrape-metrics';
import { useGateways } from './support/use-gateways';

const database = useTestDatabase();
const group = useGateways();

const chat = JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'hi' }] });
const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: chat };

describe('a provider budget whose ledger fails', () => {
  it('answers unbudgeted, warns with the cause and counts it; budgeted again once it answers', async () => {
    const mock = await createMockProvider();
    group.defer(() => mock.close());
    const gateway = await group.start({
      config: {
        sessionsDir: 'sessions',
        providers: [
          {
            id: 'co',
            api: 'openai-chat',
            baseUrl: mock.openaiBaseUrl,
            profiles: [{ id: 'main', apiKey: 'sk-unchecked' }],
          },
        ],
        models: { primary: 'co/unchecked' },
        retry: { maxRetries: 0, maxWaitMs: 0 },
        storage: { kind: 'postgres', url: database.url },
        budgets: { limits: { 'co/unchecked': { rpm: 100, burst: 100 } } },
        logging: { level: 'warn' },
      },
    });
    group.defer(() => removeDir(gateway.dir));
    const unchecked = async () =>
      metricTotal(await scrapeMetrics(gateway), 'keel_budget_unchecked_total');
    const requestsInBudget = async () =>
      Number(
        (
          await database.query(
            "SELECT coalesce(sum(requests), 0) AS n FROM keel.budget_slices WHERE span = 'm'",
          )
        ).rows[0]?.['n'],
      );

    expect((await gateway.fetch('/v1/chat/completions', post)).status).toBe(200);
    expect(await requestsInBudget()).toBe(1);
    expect(await unchecked()).toBe(0);

    await database.query('ALTER FUNCTION keel.budget_reserve RENAME TO budget_reserve_away');
    expect((await gateway.fetch('/v1/chat/completions', post)).status).toBe(200);
    expect(mock.requests).toHaveLength(2);
    expect(await requestsInBudget()).toBe(1);
    expect(await unchecked()).toBe(1);
    const warning = await gateway.waitForLog(
      (line) =>
        line['msg'] === 'a provider budget could not be checked: the request went unbudgeted',
    );
    expect(warning).toMatchObject({
      budget: 'co/unchecked#main',
      err: { code: '42883', detail: expect.stringContaining('budget_reserve') },
    });

    // The function back, the next request is budgeted again, and nothing more is counted.
    await database.query('ALTER FUNCTION keel.budget_reserve_away RENAME TO budget_reserve');
    expect((await gateway.fetch('/v1/chat/completions', post)).status).toBe(200);
    expect(await requestsInBudget()).toBe(2);
    expect(await unchecked()).toBe(1);
    expect(await gateway.stop('SIGTERM')).toBe(0);
  }, 120_000);
});
