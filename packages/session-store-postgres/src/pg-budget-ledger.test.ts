/**
 * The PostgreSQL budget ledger against the in-memory one (`@keel/provider-health`'s, the
 * reference): the same calls at the same (fake) times give the same answers; across pools (as
 * across gateways) the last request of a budget is taken once; a check is one round trip.
 */

import { useTestDatabase } from '@keel/postgres-test-server';
import {
  type BudgetDecision,
  type BudgetLedger,
  type BudgetLimits,
  type BudgetReservation,
  createBudgetLedger,
} from '@keel/provider-health';
import { describe, expect, it } from 'vitest';
import { createPostgresBudgetLedger, type PostgresBudgetLedgerOptions } from './pg-budget-ledger';
import type { PostgresPool } from './postgres-pool';

const database = useTestDatabase();
let schemas = 0;

function ledgerOn(options: Omit<PostgresBudgetLedgerOptions, 'pool' | 'connectionString'>) {
  schemas += 1;
  return createPostgresBudgetLedger({
    pool: database.pool({ max: 4 }),
    schema: `budget_${schemas}`,
    ...options,
  });
}

/** A pool that counts the statements sent through it. */
function counting(pool: PostgresPool): PostgresPool & { queries: number } {
  const counted = {
    queries: 0,
    connect: () => pool.connect(),
    end: () => pool.end(),
    query(text: string, values?: unknown[]) {
      counted.queries += 1;
      return pool.query(text, values);
    },
  };
  return counted;
}

/** A seeded sequence of reserves, reconciles and cancels at moving times. */
function* script(seed: number) {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  for (let step = 0; step < 300; step += 1) {
    const roll = random();
    yield {
      advance: Math.floor(random() * 500),
      key: roll < 0.7 ? 'a' : 'b',
      // Now and then a request larger than tpm (admitted only into an empty window).
      tokens: roll > 0.95 ? 2_000 : Math.floor(random() * 400),
      used: Math.floor(random() * 500),
      action: roll < 0.1 ? 'cancel' : roll < 0.5 ? 'reconcile' : 'keep',
    } as const;
  }
}

describe('createPostgresBudgetLedger', () => {
  it.each<[string, BudgetLimits]>([
    ['windows only', { rpm: 7, tpm: 1_500, tpd: 9_000 }],
    ['rpm paced (burst)', { rpm: 7, tpm: 1_500, tpd: 9_000, burst: 2 }],
    ['tpm paced (tpmBurst)', { rpm: 7, tpm: 1_500, tpd: 9_000, tpmBurst: 200 }],
    ['both paced', { rpm: 7, tpm: 1_500, tpd: 9_000, burst: 2, tpmBurst: 300 }],
  ])(
    'answers as the in-memory ledger does, call for call, over a long random run: %s',
    async (_, limits) => {
      let now = Date.UTC(2026, 11, 1, 12);
      const clock = { now: () => now };
      const windows = { minuteMs: 6_000, dayMs: 60_000 };
      const rows = ledgerOn({ clock, ...windows });
      const memory: BudgetLedger = createBudgetLedger({ clock, ...windows });
      const held = new Map<string, [BudgetReservation, BudgetReservation]>();
      let granted = 0;
      let denied = 0;
      try {
        for (const step of script(7)) {
          now += step.advance;
          const [fromRows, fromMemory] = [
            await rows.reserve(step.key, limits, step.tokens),
            await memory.reserve(step.key, limits, step.tokens),
          ];
          expect(fromRows).toEqual(fromMemory);
          if (fromRows.granted && fromMemory.granted) {
            granted += 1;
            if (step.action === 'cancel') {
              await rows.cancel(fromRows.reservation);
              await memory.cancel(fromMemory.reservation);
            } else if (step.action === 'reconcile') {
              held.set(step.key, [fromRows.reservation, fromMemory.reservation]);
            }
          } else {
            denied += 1;
          }
          const earlier = held.get(step.key === 'a' ? 'b' : 'a');
          if (earlier !== undefined && step.action === 'reconcile') {
            await rows.reconcile(earlier[0], step.used);
            await memory.reconcile(earlier[1], step.used);
          }
          // Now and then tokens answered here for a request admitted elsewhere (no reservation).
          if (step.used % 5 === 0) {
            await rows.record(step.key, limits, step.used);
            await memory.record(step.key, limits, step.used);
          }
          expect(await rows.remaining(step.key, limits)).toEqual(
            await memory.remaining(step.key, limits),
          );
        }
        // The run went through both answers many times.
        expect(granted).toBeGreaterThan(50);
        expect(denied).toBeGreaterThan(50);
      } finally {
        await rows.close();
      }
    },
  );

  it('paced tpm: the usage reported and a cancel move the token pace as in memory', async () => {
    let now = Date.UTC(2026, 11, 1, 12);
    const clock = { now: () => now };
    const rows = ledgerOn({ clock });
    const memory = createBudgetLedger({ clock });
    // 6 000 tokens a minute: a token is 10 ms of pace; 300 may go back to back.
    const limits = { tpm: 6_000, tpmBurst: 300 };
    const both = async (tokens: number) => {
      const [fromRows, fromMemory] = [
        await rows.reserve('t', limits, tokens),
        await memory.reserve('t', limits, tokens),
      ];
      expect(fromRows).toEqual(fromMemory);
      return [fromRows, fromMemory] as const;
    };
    const granted = (decision: BudgetDecision) => {
      if (!decision.granted) throw new Error('expected a grant');
      return decision.reservation;
    };
    try {
      const [first, firstHere] = await both(250);
      await rows.reconcile(granted(first), 50);
      await memory.reconcile(granted(firstHere), 50);
      // Only thanks to the reconcile (2.5 s of pace back to 0.5 s): 250 more go at once.
      expect((await both(250))[0].granted).toBe(true);
      now += 3_000;
      const [third, thirdHere] = await both(250);
      await rows.reconcile(granted(third), 550);
      await memory.reconcile(granted(thirdHere), 550);
      now += 2_000;
      expect((await both(1))[0]).toEqual({ granted: false, limit: 'tpm', waitMs: 510 });
      await rows.cancel({ ...granted(third), tokens: 550 });
      await memory.cancel({ ...granted(thirdHere), tokens: 550 });
      expect((await both(250))[0].granted).toBe(true);
    } finally {
      await rows.close();
    }
  });

  it('tokens recorded with no reservation: the minute, the day and the token pace as in memory', async () => {
    let now = Date.UTC(2026, 11, 1, 12);
    const clock = { now: () => now };
    const windows = { minuteMs: 6_000, dayMs: 60_000 };
    const rows = ledgerOn({ clock, ...windows });
    const memory = createBudgetLedger({ clock, ...windows });
    const both = async (key: string, limits: BudgetLimits, tokens: number) => {
      const [fromRows, fromMemory] = [
        await rows.reserve(key, limits, tokens),
        await memory.reserve(key, limits, tokens),
      ];
      expect(fromRows).toEqual(fromMemory);
      return fromRows;
    };
    const record = async (key: string, limits: BudgetLimits, tokens: number) => {
      await rows.record(key, limits, tokens);
      await memory.record(key, limits, tokens);
      expect(await rows.remaining(key, limits)).toEqual(await memory.remaining(key, limits));
      return rows.remaining(key, limits);
    };
    try {
      const limits = { rpm: 5, tpm: 1_000, tpd: 3_000 };
      expect(await record('w', limits, 399.2)).toEqual({ rpm: 5, tpm: 600, tpd: 2_600 });
      expect(await record('w', limits, 0)).toEqual({ rpm: 5, tpm: 600, tpd: 2_600 });
      // In the same slices as a grant at the same time, and refusing what does not fit beside it.
      expect((await both('w', limits, 100)).granted).toBe(true);
      expect(await record('w', limits, 500)).toEqual({ rpm: 4, tpm: 0, tpd: 2_000 });
      expect(await both('w', limits, 1)).toMatchObject({ granted: false, limit: 'tpm' });
      now += 6_100; // out of the minute, still in the day
      expect(await rows.remaining('w', limits)).toEqual({ rpm: 5, tpm: 1_000, tpd: 2_000 });
      // Paced: the token pace moves on from now (a row made by it, a pace left behind, one ahead).
      const paced = { rpm: 5, burst: 1, tpm: 1_000, tpmBurst: 100 };
      await record('p', paced, 300);
      expect(await both('p', paced, 100)).toEqual({ granted: false, limit: 'tpm', waitMs: 1_800 });
      now += 10_000;
      await record('p', paced, 300);
      expect(await both('p', paced, 100)).toEqual({ granted: false, limit: 'tpm', waitMs: 1_800 });
      await record('p', paced, 50);
      expect(await both('p', paced, 100)).toEqual({ granted: false, limit: 'tpm', waitMs: 2_100 });
      now += 2_100;
      expect((await both('p', paced, 100)).granted).toBe(true);
      // Not paced: the token pace stays where it was (neither moved on nor cleared).
      const tokensOnly = { tpm: 1_000, tpmBurst: 100 };
      await record('q', tokensOnly, 300);
      await record('q', { tpm: 1_000 }, 300);
      expect(await both('q', tokensOnly, 100)).toEqual({
        granted: false,
        limit: 'tpm',
        waitMs: 1_800,
      });
    } finally {
      await rows.close();
    }
  });

  it('two gateways (two pools) racing for the last requests of a budget: each taken once', async () => {
    schemas += 1;
    const schema = `budget_${schemas}`;
    const one = createPostgresBudgetLedger({ pool: database.pool({ max: 5 }), schema });
    const two = createPostgresBudgetLedger({ pool: database.pool({ max: 5 }), schema });
    try {
      await one.remaining('warm', { rpm: 1 }); // migrate once, before the race
      const decisions = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          (index % 2 === 0 ? one : two).reserve('shared', { rpm: 12 }, 0),
        ),
      );
      expect(decisions.filter((decision) => decision.granted)).toHaveLength(12);
      const waits = decisions.flatMap((decision) => (decision.granted ? [] : [decision.waitMs]));
      // By the database's clock: the budget frees within one minute and one slice.
      for (const wait of waits) {
        expect(wait).toBeGreaterThan(0);
        expect(wait).toBeLessThanOrEqual(61_000);
      }
      expect(await two.remaining('shared', { rpm: 12 })).toEqual({ rpm: 0 });
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('a reservation, a reconcile and a cancel are one round trip each', async () => {
    schemas += 1;
    const pool = counting(database.pool({ max: 2 }));
    const ledger = createPostgresBudgetLedger({ pool, schema: `budget_${schemas}` });
    try {
      await ledger.remaining('k', { rpm: 1 }); // the migration, once
      pool.queries = 0;
      const limits = { rpm: 5, tpm: 1000, tpd: 5000, burst: 1, tpmBurst: 100 };
      const decision = await ledger.reserve('k', limits, 100);
      expect(pool.queries).toBe(1);
      if (!decision.granted) throw new Error('expected a grant');
      await ledger.reconcile(decision.reservation, 40);
      expect(pool.queries).toBe(2);
      await ledger.cancel(decision.reservation);
      expect(pool.queries).toBe(3);
      expect(await ledger.remaining('k', { rpm: 5, tpm: 1000 })).toEqual({ rpm: 5, tpm: 1000 });
      // The cancel gave the paced grant's place back: the next may go at once.
      expect((await ledger.reserve('k', { rpm: 5, burst: 1 }, 0)).granted).toBe(true);
      expect(pool.queries).toBe(5);
      await ledger.record('k', limits, 30);
      expect(pool.queries).toBe(6);
      expect(await ledger.remaining('k', limits)).toEqual({ rpm: 4, tpm: 970, tpd: 4970 });
    } finally {
      await ledger.close();
    }
  });

  it('refuses limits that cannot work before any round trip', async () => {
    const ledger = ledgerOn({});
    try {
      await expect(ledger.reserve('k', { tpm: 0 }, 1)).rejects.toThrow('budgets.tpm');
      expect(() => ledgerOn({ minuteMs: 0 })).toThrow('minuteMs');
    } finally {
      await ledger.close();
    }
  });
});
