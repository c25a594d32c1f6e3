// A lease and a turn claim are made for every turn: their `released` is a getter of a shared
// prototype, not one of their own literal, whose accessor pair V8 would allocate in the old
// generation and through it keep the lease's whole scope alive through every scavenge until the
// next full collection (`promotedBytes` in @keel/testing shows the effect).
import { useTestDatabase } from '@keel/postgres-test-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresSessionStorage } from './postgres-session-storage';

const database = useTestDatabase();
let storage: ReturnType<typeof createPostgresSessionStorage>;
beforeAll(() => {
  storage = createPostgresSessionStorage({ pool: database.pool({ max: 2 }), schema: 'die_young' });
});
afterAll(() => storage.close());

/** The names of `value`'s own properties that are accessors. */
function ownAccessors(value: object): string[] {
  return Object.entries(Object.getOwnPropertyDescriptors(value))
    .filter(([, descriptor]) => descriptor.get !== undefined || descriptor.set !== undefined)
    .map(([name]) => name);
}

it('a lease and a turn claim have no getters of their own, and say when they were released', async () => {
  const lease = await storage.lease('young-1');
  expect(ownAccessors(lease)).toEqual([]);
  expect(lease.released).toBe(false);
  await lease.release();
  expect(lease.released).toBe(true);

  const claims = storage.turnClaims;
  if (claims === undefined) throw new Error('the PostgreSQL store has no turn claims');
  const granted = await claims.claimTurn('young-1', { owner: 'gw', turnId: 't1' });
  if (!granted.claimed) throw new Error('the claim was not granted');
  expect(ownAccessors(granted.claim)).toEqual([]);
  expect(granted.claim.released).toBe(false);
  await granted.claim.release();
  expect(granted.claim.released).toBe(true);
});
