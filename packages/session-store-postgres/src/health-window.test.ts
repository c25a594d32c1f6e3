/**
 * The breaker window on PostgreSQL rows: a success is counted in one statement of SQL, which must
 * agree with the rules' own `countOutcome`; other reports that cannot change a breaker cost no
 * transaction; schema version 3 replaces the burst of version 2 without losing a breaker.
 */

import { useTestDatabase } from '@keel/postgres-test-server';
import {
  applyReport,
  type BreakerRow,
  closedBreaker,
  resolveHealthRules,
} from '@keel/provider-health';
import type { HealthReport, ModelTarget } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../test/fake-clock';
import { migratePool } from './migrate';
import type { PostgresPool } from './postgres-pool';
import { createPostgresProviderHealth } from './postgres-provider-health';
import { SCHEMA_VERSION } from './schema-migrations';

const database = useTestDatabase();
const sonnet: ModelTarget = { providerId: 'anthropic', profileId: 'one', model: 'sonnet' };
let schemas = 0;

/** A pool that counts the statements sent outside a transaction and the transactions opened. */
function countingPool(pool: PostgresPool) {
  const counts = { queries: 0, transactions: 0 };
  const counting: PostgresPool = {
    query(text, values) {
      counts.queries += 1;
      return pool.query(text, values);
    },
    connect() {
      counts.transactions += 1;
      return pool.connect();
    },
    end: () => pool.end(),
  };
  return { pool: counting, counts };
}

async function windowRow(schema: string) {
  const { rows } = await database.query(
    `SELECT state, window_starts, window_failures, window_successes FROM ${schema}.health_breakers`,
  );
  const row = rows[0];
  return {
    state: row?.state,
    window: (row?.window_starts ?? []).map((start: string, index: number) => ({
      start: Number(start),
      failures: row?.window_failures[index],
      successes: row?.window_successes[index],
    })),
  };
}

describe('the breaker window in PostgreSQL', () => {
  it('counts successes in SQL exactly as the rules count outcomes, across slices and the window’s end', async () => {
    schemas += 1;
    const schema = `window_${schemas}`;
    const clock = createFakeClock();
    const options = { windowMs: 1_000, minFailures: 1_000 };
    const health = createPostgresProviderHealth({
      pool: database.pool({ max: 2 }),
      schema,
      clock,
      ...options,
    });
    const rules = resolveHealthRules(options);
    const expected: BreakerRow = closedBreaker();
    // Steps in ms between reports: within a slice, across slices, past the whole window.
    const steps = [0, 40, 70, 100, 250, 999, 1, 1_000, 130, 30, 2_500, 90];
    let index = 0;
    for (const step of steps) {
      clock.advance(step);
      index += 1;
      const report: HealthReport =
        index % 3 === 0
          ? { type: 'failure', target: sonnet, kind: 'server_error', probe: false }
          : { type: 'success', target: sonnet, probe: false };
      await health.report(report);
      applyReport(expected, report, rules, clock.now());
      expect(await windowRow(schema), `after report ${index}`).toEqual({
        state: 'closed',
        window: expected.window,
      });
    }
    expect(expected.window.length).toBeGreaterThan(0);
    await health.close();
  });

  it('a success outside a probe is one statement and no transaction; a rate limit opens none', async () => {
    schemas += 1;
    const { pool, counts } = countingPool(database.pool({ max: 2 }));
    const health = createPostgresProviderHealth({ pool, schema: `window_${schemas}` });
    await health.snapshot(); // migrated
    const before = { ...counts };
    await health.report({ type: 'success', target: sonnet, probe: false });
    expect(counts).toEqual({ queries: before.queries + 1, transactions: before.transactions });
    await health.report({ type: 'failure', target: sonnet, kind: 'rate_limit', probe: false });
    await health.report({ type: 'overloaded', target: sonnet, retryAfterMs: 5_000 });
    expect(counts.transactions).toBe(before.transactions);
    await health.report({ type: 'failure', target: sonnet, kind: 'server_error', probe: false });
    expect(counts.transactions).toBe(before.transactions + 1);
    await health.close();
  });

  it('version 3 replaces the burst of version 2 and keeps every breaker as it was', async () => {
    schemas += 1;
    const schema = `window_${schemas}`;
    const pool = database.pool({ max: 2 });
    await migratePool(pool, schema, undefined, 2);
    const until = Date.now() + 60_000;
    await database.query(
      `INSERT INTO ${schema}.health_breakers
        (provider_id, model, state, open_until, failed_probes, probe_until, burst)
        VALUES ('anthropic', 'sonnet', 'open', $1, 2, 0, '{1,2,3}')`,
      [until],
    );
    expect(await migratePool(pool, schema, undefined)).toMatchObject({
      from: 2,
      to: SCHEMA_VERSION,
    });
    const health = createPostgresProviderHealth({ pool, schema });
    expect(await health.permit(sonnet)).toMatchObject({ allowed: false, reason: 'breaker-open' });
    expect((await health.snapshot()).breakers).toEqual([
      {
        providerId: 'anthropic',
        model: 'sonnet',
        state: 'open',
        openUntil: until,
        failedProbes: 2,
      },
    ]);
    expect(await windowRow(schema)).toEqual({ state: 'open', window: [] });
    const { rows } = await database.query(
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = $1 AND table_name = 'health_breakers' AND column_name = 'burst'`,
      [schema],
    );
    expect(rows).toEqual([]);
  });
});
