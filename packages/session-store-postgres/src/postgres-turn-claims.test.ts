/**
 * Turn claims between gateways: two stores, each over its own pool, on one schema. The
 * conformance kit (`postgres-session-storage.test.ts`) checks the rules on one store; here the
 * holder and the contender are different stores, as two gateways are.
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import type { TurnClaim } from '@keel/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresSessionStorage } from './postgres-session-storage';

const database = useTestDatabase();
let gateways: ReturnType<typeof createPostgresSessionStorage>[] = [];
beforeAll(() => {
  gateways = [0, 1].map(() =>
    createPostgresSessionStorage({ pool: database.pool({ max: 2 }), schema: 'claims_between' }),
  );
});
afterAll(() => Promise.all(gateways.map((gateway) => gateway.close())));

function claimsOf(index: number) {
  const claims = gateways[index]?.turnClaims;
  if (claims === undefined) throw new Error('the PostgreSQL store has no turn claims');
  return claims;
}

describe('turn claims across gateways', () => {
  it('a second gateway is told who runs the turn, and takes over only once the claim expired', async () => {
    const [a, b] = [claimsOf(0), claimsOf(1)];
    const first = await a.claimTurn('between-1', { owner: 'gw-a', turnId: 't1', ttlMs: 1_500 });
    if (!first.claimed) throw new Error('gw-a was refused a free session');
    const holder = { owner: 'gw-a', turnId: 't1', token: first.claim.token };
    expect(await b.claimTurn('between-1', { owner: 'gw-b', turnId: 't2' })).toEqual({
      claimed: false,
      holder,
    });
    expect(await b.currentTurn('between-1')).toEqual(holder);
    // gw-a stops heartbeating (frozen): the database's clock ends its claim.
    let second: TurnClaim | undefined;
    for (let tries = 0; second === undefined && tries < 400; tries += 1) {
      const result = await b.claimTurn('between-1', { owner: 'gw-b', turnId: 't2' });
      if (result.claimed) second = result.claim;
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (second === undefined) throw new Error('the frozen claim never expired');
    expect(BigInt(second.token)).toBe(BigInt(first.claim.token) + 1n);
    await expect(first.claim.heartbeat()).rejects.toMatchObject({
      keelKind: 'session_takeover',
      change: 'stale-token',
    });
    await first.claim.release();
    expect(await a.currentTurn('between-1')).toEqual({
      owner: 'gw-b',
      turnId: 't2',
      token: second.token,
    });
    await second.release();
    expect(await a.currentTurn('between-1')).toBeUndefined();
  });

  it("a granted claim prunes the session's queued appends, and only that session's", async () => {
    const [a, b] = [claimsOf(0), claimsOf(1)];
    const message = (id: string) => ({
      type: 'message' as const,
      id,
      messageId: id,
      timestamp: new Date(0).toISOString(),
      role: 'user' as const,
      content: [{ type: 'text' as const, text: id }],
    });
    const rows = async (sessionId: string) =>
      Number(
        (
          await database.query(
            'SELECT count(*) AS n FROM claims_between.queued_appends WHERE session_id = $1',
            [sessionId],
          )
        ).rows[0]?.['n'],
      );
    await b.appendQueued('between-2', [message('q1')]);
    await b.appendQueued('between-2', [message('q2')]);
    await b.appendQueued('between-3', [message('q3')]);
    expect([await rows('between-2'), await rows('between-3')]).toEqual([2, 1]);
    const taken = await a.claimTurn('between-2', { owner: 'gw-a', turnId: 't3' });
    expect(taken.claimed).toBe(true);
    expect([await rows('between-2'), await rows('between-3')]).toEqual([0, 1]);
    // Queued during the new turn: recorded, for that turn's fence to adopt.
    await b.appendQueued('between-2', [message('q4')]);
    expect(await rows('between-2')).toBe(1);
    if (taken.claimed) await taken.claim.release();
  });
});
