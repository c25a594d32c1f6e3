/**
 * The store's `waitForChange` across gateways: two stores over their own pools on one schema. An
 * append or a claim's release at one wakes the other's waiter for that session at once (the
 * waits here last ten minutes: only a notification ends them in time); a waiter of another
 * session sleeps on; a listening connection the server ends is replaced, and wakes again.
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import type { SessionTurnClaims } from '@keel/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresSessionStorage } from './postgres-session-storage';
import { listenSql } from './session-notifications';

const database = useTestDatabase();
const schema = 'notified';
let stores: ReturnType<typeof createPostgresSessionStorage>[] = [];
beforeAll(() => {
  stores = [0, 1].map(() =>
    createPostgresSessionStorage({ pool: database.pool({ max: 3 }), schema }),
  );
});
afterAll(() => Promise.all(stores.map((store) => store.close())));

const LONG = 600_000;
const user = (id: string) => ({
  type: 'message' as const,
  id,
  messageId: id,
  timestamp: new Date(0).toISOString(),
  role: 'user' as const,
  content: [{ type: 'text' as const, text: id }],
});

function claimsOf(index: number): Required<SessionTurnClaims> {
  const claims = stores[index]?.turnClaims;
  if (claims?.waitForChange === undefined) throw new Error('no waitForChange');
  return claims as Required<SessionTurnClaims>;
}

/** The server processes that listen on the schema's channel. */
async function listeners(): Promise<number[]> {
  const { rows } = await database.query(
    `SELECT pid FROM pg_stat_activity WHERE query = $1 AND state = 'idle'`,
    [listenSql(`"${schema}"`)],
  );
  return rows.map((row) => Number(row['pid']));
}

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('waitForChange', () => {
  it('an append at another gateway wakes the waiter of that session, not of another', async () => {
    const waiting = claimsOf(0);
    // The first wait connects the listener; it is up once the server shows it.
    await waiting.waitForChange('n-warm', { timeoutMs: 1 });
    await until(async () => (await listeners()).length === 1);
    const woken = waiting.waitForChange('n-1', { timeoutMs: LONG });
    const other = waiting.waitForChange('n-2', { timeoutMs: 500 });
    await stores[1]!.append('n-1', [user('m1')]);
    expect(await woken).toBe(true);
    expect(await other).toBe(false);
  });

  it("a claim's release at another gateway wakes the waiter", async () => {
    const waiting = claimsOf(0);
    const taken = await claimsOf(1).claimTurn('n-3', { owner: 'gw-b', turnId: 't1' });
    if (!taken.claimed) throw new Error('refused');
    await waiting.waitForChange('n-warm', { timeoutMs: 1 });
    await until(async () => (await listeners()).length === 1);
    const woken = waiting.waitForChange('n-3', { timeoutMs: LONG });
    await taken.claim.release();
    expect(await woken).toBe(true);
    expect(await waiting.currentTurn('n-3')).toBeUndefined();
  });

  it('a listening connection the server ends is replaced, and wakes the waiter again', async () => {
    const waiting = claimsOf(0);
    await waiting.waitForChange('n-warm', { timeoutMs: 1 });
    await until(async () => (await listeners()).length === 1);
    const [lost] = await listeners();
    await database.query('SELECT pg_terminate_backend($1)', [lost]);
    // Later waits reconnect (at most once a second): a new listener shows up.
    await until(async () => {
      await waiting.waitForChange('n-warm', { timeoutMs: 50 });
      const now = await listeners();
      return now.length === 1 && now[0] !== lost;
    });
    const woken = waiting.waitForChange('n-4', { timeoutMs: LONG });
    await stores[1]!.append('n-4', [user('m4')]);
    expect(await woken).toBe(true);
  });

  it('an abort ends the wait with its reason', async () => {
    const controller = new AbortController();
    const waiting = claimsOf(0).waitForChange('n-5', {
      timeoutMs: LONG,
      signal: controller.signal,
    });
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
  });
});
