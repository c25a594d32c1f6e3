/**
 * A lease waiter listens instead of polling: a lease let go at one gateway is announced on the
 * schema's lease channel, and a gateway waiting for that session's lease tries again at once.
 * The waits here poll once every ten minutes and last as long: only the announcement can end
 * them within the test's timeout.
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresSessionStorage } from './postgres-session-storage';
import { listenSql } from './session-notifications';

const database = useTestDatabase();
const schema = 'lease_wake';
const LONG = 600_000;
let stores: ReturnType<typeof createPostgresSessionStorage>[] = [];

function gateway(name: string) {
  const store = createPostgresSessionStorage({
    pool: database.pool({ max: 3 }),
    schema,
    lease: { ttlMs: LONG, timeoutMs: LONG, pollMs: LONG, holder: name },
  });
  stores.push(store);
  return store;
}

afterEach(async () => {
  await Promise.all(stores.map((store) => store.close()));
  stores = [];
});

/** How many connections listen on this schema's channels now. */
async function listening(): Promise<number> {
  const { rows } = await database.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1 AND state = 'idle'`,
    [listenSql(`"${schema}"`)],
  );
  return Number(rows[0]?.['n']);
}

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('a lease waiter is woken when the lease is let go', () => {
  it('a release at another gateway hands the lease on at once, long before the poll', async () => {
    const holder = gateway('gw-a');
    const waiter = gateway('gw-b');
    const held = await holder.lease('wake-1');
    const waiting = waiter.lease('wake-1');
    // The waiter listens once its first attempt found the lease held: it is waiting now.
    await until(async () => (await listening()) === 1);
    await held.release();
    const next = await waiting;
    expect(BigInt(next.token)).toBe(BigInt(held.token) + 1n);
    await next.release();
  });

  it('waiters of one session get the lease one after another, each as the last is let go', async () => {
    const holder = gateway('gw-a');
    const waiter = gateway('gw-b');
    // The waiting gateway listens already (an earlier wait, of another session).
    const other = await holder.lease('wake-warm');
    const warm = waiter.lease('wake-warm');
    await until(async () => (await listening()) === 1);
    await other.release();
    await (await warm).release();

    const held = await holder.lease('wake-2');
    const pending = new Map(
      [1, 2, 3].map((index) => [index, waiter.lease('wake-2').then((lease) => ({ lease, index }))]),
    );
    await held.release();
    const tokens: bigint[] = [];
    while (pending.size > 0) {
      const { lease, index } = await Promise.race(pending.values());
      pending.delete(index);
      tokens.push(BigInt(lease.token));
      await lease.release();
    }
    expect(tokens).toEqual([1n, 2n, 3n].map((step) => BigInt(held.token) + step));
  });
});
