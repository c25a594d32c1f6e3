/**
 * Provider health shared by several gateways (each with its own pool and its own health object)
 * over one database, on the database's own clock.
 */

import { useTestDatabase } from '@keel/postgres-test-server';
import type { HealthEvent, HealthPermit, ModelTarget } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../test/fake-clock';
import {
  createPostgresProviderHealth,
  type PostgresProviderHealthOptions,
} from './postgres-provider-health';

const database = useTestDatabase();
const sonnet: ModelTarget = { providerId: 'anthropic', profileId: 'one', model: 'sonnet' };
const otherProfile: ModelTarget = { ...sonnet, profileId: 'two' };
let schemas = 0;

type HealthOptions = Omit<PostgresProviderHealthOptions, 'pool' | 'connectionString' | 'schema'>;

/** `count` gateways sharing one fresh schema, each with its own pool, health and event list. */
async function gateways(count: number, options: HealthOptions = {}) {
  schemas += 1;
  const schema = `shared_${schemas}`;
  const list = Array.from({ length: count }, () => {
    const health = createPostgresProviderHealth({
      pool: database.pool({ max: 4 }),
      schema,
      ...options,
    });
    const events: HealthEvent[] = [];
    health.subscribe((event) => events.push(event));
    return { health, events };
  });
  await Promise.all(list.map(({ health }) => health.snapshot()));
  return list;
}

/** Asks every gateway for `perGateway` permits at once. */
async function permitsAtOnce(list: Awaited<ReturnType<typeof gateways>>, perGateway: number) {
  const asks: Array<Promise<HealthPermit>> = [];
  for (const { health } of list) {
    for (let index = 0; index < perGateway; index += 1) {
      asks.push(health.permit(index % 2 === 0 ? sonnet : otherProfile));
    }
  }
  return Promise.all(asks);
}

/** Reports `count` server errors on sonnet, one after another, from the gateways in turn. */
async function failures(list: Awaited<ReturnType<typeof gateways>>, count: number) {
  for (let index = 0; index < count; index += 1) {
    await list[index % list.length]!.health.report({
      type: 'failure',
      target: sonnet,
      kind: 'server_error',
      probe: false,
    });
  }
}

function probesOf(permits: HealthPermit[]) {
  return permits.filter((permit) => permit.allowed && permit.probe).length;
}

describe('provider health across gateways', () => {
  it('a long retry-after seen by one gateway makes every gateway skip the model; only the reporter hears of it', async () => {
    const [first, second] = await gateways(2);
    await first!.health.report({ type: 'overloaded', target: sonnet, retryAfterMs: 30_000 });
    const permit = await second!.health.permit(otherProfile);
    expect(permit).toMatchObject({ allowed: false, reason: 'breaker-open' });
    if (permit.allowed) throw new Error('unreachable');
    expect(permit.waitMs).toBeGreaterThan(0);
    expect(permit.waitMs).toBeLessThanOrEqual(30_000);
    expect(first!.events).toMatchObject([{ type: 'breaker-change', to: 'open' }]);
    expect(second!.events).toEqual([]);
  });

  it('half-open lets exactly one probe through among many callers on three gateways', async () => {
    const list = await gateways(3, { breakerCooldownMs: 50 });
    await failures(list, 3);
    while ((await list[1]!.health.snapshot()).breakers[0]?.state !== 'half-open') {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const permits = await permitsAtOnce(list, 8);
    expect(probesOf(permits)).toBe(1);
    expect(permits.filter((permit) => !permit.allowed)).toHaveLength(23);
    for (const permit of permits) {
      if (!permit.allowed) expect(permit.reason).toBe('probe-in-flight');
    }
    const halfOpened = list.flatMap(({ events }) =>
      events.filter((event) => event.type === 'breaker-change' && event.to === 'half-open'),
    );
    expect(halfOpened).toHaveLength(1);
  });

  it('exactly one probe wins in every round, on a shared test clock too', async () => {
    const clock = createFakeClock();
    const list = await gateways(3, {
      clock,
      breakerCooldownMs: 1_000,
      maxBreakerCooldownMs: 1_000,
    });
    await failures(list, 3);
    for (let round = 0; round < 5; round += 1) {
      clock.advance(1_000);
      const permits = await permitsAtOnce(list, 6);
      expect(probesOf(permits), `round ${round}`).toBe(1);
      await list[round % 3]!.health.report({
        type: 'failure',
        target: sonnet,
        kind: 'overloaded',
        probe: true,
      });
    }
  });

  it('failures reported by different gateways at once count together and open the breaker once', async () => {
    const list = await gateways(3);
    await Promise.all(
      list.map(({ health }) =>
        health.report({ type: 'failure', target: sonnet, kind: 'server_error', probe: false }),
      ),
    );
    expect(await list[2]!.health.permit(sonnet)).toMatchObject({
      allowed: false,
      reason: 'breaker-open',
    });
    const opened = list.flatMap(({ events }) => events);
    expect(opened).toMatchObject([{ type: 'breaker-change', from: 'closed', to: 'open' }]);
  });

  it('successes reported by different gateways at once are each counted (one statement each)', async () => {
    const list = await gateways(3);
    await Promise.all(
      list.flatMap(({ health }) =>
        [1, 2, 3, 4].map(() => health.report({ type: 'success', target: sonnet, probe: false })),
      ),
    );
    // 12 successes: the 11th failure is still under half of the window, the 12th is not.
    await failures(list, 11);
    expect(await list[0]!.health.permit(sonnet)).toEqual({ allowed: true, probe: false });
    await failures(list, 1);
    expect(await list[0]!.health.permit(sonnet)).toMatchObject({ reason: 'breaker-open' });
  });

  it('a cooldown reported by one gateway holds on the others, and is only ever extended', async () => {
    const [first, second] = await gateways(2);
    await first!.health.report({
      type: 'failure',
      target: sonnet,
      kind: 'rate_limit',
      probe: false,
      retryAfterMs: 40_000,
    });
    await second!.health.report({
      type: 'failure',
      target: sonnet,
      kind: 'rate_limit',
      probe: false,
      retryAfterMs: 1_000,
    });
    const permit = await second!.health.permit(sonnet);
    expect(permit).toMatchObject({ allowed: false, reason: 'profile-cooling' });
    if (permit.allowed) throw new Error('unreachable');
    expect(permit.waitMs).toBeGreaterThan(1_000);
    expect(second!.events).toEqual([]);
    expect(await second!.health.permit(otherProfile)).toEqual({ allowed: true, probe: false });
  });

  it('an aborted signal stops a call before it asks the database', async () => {
    const [only] = await gateways(1);
    const signal = AbortSignal.abort(new Error('stop'));
    await expect(only!.health.permit(sonnet, { signal })).rejects.toThrow('stop');
    await expect(
      only!.health.report({ type: 'overloaded', target: sonnet }, { signal }),
    ).rejects.toThrow('stop');
    expect((await only!.health.snapshot()).breakers).toEqual([]);
  });
});
