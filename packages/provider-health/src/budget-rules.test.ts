import { describe, expect, it } from 'vitest';
import {
  type BudgetLimits,
  type BudgetRow,
  budgetRemaining,
  cancelBudget,
  checkBudgetLimits,
  emptyBudgetRow,
  reconcileBudget,
  reserveBudget,
  resolveBudgetWindows,
} from './budget-rules';
import { HealthConfigError } from './health-config-error';

const windows = resolveBudgetWindows(); // a 60 s minute in 1 s slices, a day in 1 h slices

function reserve(row: BudgetRow, limits: BudgetLimits, tokens: number, now: number) {
  return reserveBudget(row, 'k', limits, tokens, windows, now);
}

describe('budget rules: requests per minute', () => {
  it('grants up to rpm in a minute, then says how long until the oldest request leaves', () => {
    const row = emptyBudgetRow();
    for (let i = 0; i < 3; i += 1) expect(reserve(row, { rpm: 3 }, 0, 500).granted).toBe(true);
    // The three sit in the slice [0, 1000): it counts until 1000 + 60 000.
    expect(reserve(row, { rpm: 3 }, 0, 30_000)).toEqual({
      granted: false,
      limit: 'rpm',
      waitMs: 31_000,
    });
    expect(reserve(row, { rpm: 3 }, 0, 60_999).granted).toBe(false);
    expect(reserve(row, { rpm: 3 }, 0, 61_000).granted).toBe(true);
  });

  it('never admits more than rpm over any span of one minute (no 2× at a boundary)', () => {
    const row = emptyBudgetRow();
    const admitted: number[] = [];
    // A request every 50 ms for five minutes, against 100 rpm.
    for (let at = 0; at < 300_000; at += 50) {
      if (reserve(row, { rpm: 100 }, 0, at).granted) admitted.push(at);
    }
    for (let i = 0; i < admitted.length; i += 1) {
      const start = admitted[i] as number;
      const inWindow = admitted.filter((at) => at >= start && at <= start + 60_000).length;
      expect(inWindow).toBeLessThanOrEqual(100);
    }
    // …and loses at most one slice's worth of throughput: close to 100 per minute overall.
    expect(admitted.length).toBeGreaterThanOrEqual(490);
  });

  it('a denied request reserves nothing', () => {
    const row = emptyBudgetRow();
    reserve(row, { rpm: 1 }, 10, 0);
    expect(reserve(row, { rpm: 1 }, 10, 10).granted).toBe(false);
    expect(budgetRemaining(row, { rpm: 1, tpm: 100 }, windows, 10)).toEqual({ rpm: 0, tpm: 90 });
  });
});

/** The most of `times` in any span of `windowMs` (start included, end excluded). */
function busiest(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start += 1) {
    while (end < sorted.length && (sorted[end] as number) < (sorted[start] as number) + windowMs)
      end += 1;
    most = Math.max(most, end - start);
  }
  return most;
}

/**
 * Clients hammering one budget for ten minutes (a try every 10 ms); a grant at `at` reaches the
 * provider `delay(at)` ms later. The arrival times.
 */
function hammerArrivals(limits: BudgetLimits, delay: (at: number) => number): number[] {
  const row = emptyBudgetRow();
  const arrivals: number[] = [];
  for (let at = 0; at < 600_000; at += 10) {
    while (reserve(row, limits, 0, at).granted) arrivals.push(at + delay(at));
  }
  return arrivals;
}

describe('budget rules: paced rpm (burst)', () => {
  it('lets burst requests go back to back, then one per minute / rpm', () => {
    const row = emptyBudgetRow();
    const limits = { rpm: 60, burst: 2 };
    expect(reserve(row, limits, 0, 0).granted).toBe(true);
    expect(reserve(row, limits, 0, 0).granted).toBe(true);
    // The pace is 2 s ahead, 1 s more than the burst allows: the next may go in 1 s.
    expect(reserve(row, limits, 0, 0)).toEqual({ granted: false, limit: 'rpm', waitMs: 1000 });
    expect(reserve(row, limits, 0, 999).granted).toBe(false);
    expect(reserve(row, limits, 0, 1000).granted).toBe(true);
    expect(reserve(row, limits, 0, 1000)).toEqual({ granted: false, limit: 'rpm', waitMs: 1000 });
    // Idle long enough, the burst is there again.
    expect(reserve(row, limits, 0, 10_000).granted).toBe(true);
    expect(reserve(row, limits, 0, 10_000).granted).toBe(true);
    expect(reserve(row, limits, 0, 10_000).granted).toBe(false);
  });

  it('keeps the sliding window too: no more than rpm in any minute of grants', () => {
    const grants = hammerArrivals({ rpm: 60, burst: 10 }, () => 0);
    expect(busiest(grants, 60_000)).toBeLessThanOrEqual(60);
    expect(grants.length).toBeGreaterThanOrEqual(590);
  });

  it('a grant-to-arrival delay that varies by 2 s: at most rpm + 2 s of requests + 1 in any minute at the provider', () => {
    // Grants wait 2 s longer in every other minute (a loaded gateway, a stalled event loop).
    const stalls = (at: number) => (Math.floor(at / 61_000) % 2 === 0 ? 2_000 : 0);
    const paced = hammerArrivals({ rpm: 60, burst: 1 }, stalls);
    expect(busiest(paced, 60_000)).toBeLessThanOrEqual(60 + 2 + 1);
    expect(paced.length).toBeGreaterThanOrEqual(590);
    // The window alone grants a window's worth at once when it frees: a late batch and the next
    // one on time land in one minute at the provider.
    const windowOnly = hammerArrivals({ rpm: 60 }, stalls);
    expect(busiest(windowOnly, 60_000)).toBeGreaterThanOrEqual(100);
  });

  it('a cancelled reservation gives its place in the pace back', () => {
    const row = emptyBudgetRow();
    const limits = { rpm: 60, burst: 1 };
    const first = reserve(row, limits, 0, 0);
    if (!first.granted) throw new Error('expected a grant');
    expect(first.reservation.paceMs).toBe(1000);
    expect(reserve(row, limits, 0, 0).granted).toBe(false);
    cancelBudget(row, first.reservation);
    expect(reserve(row, limits, 0, 0).granted).toBe(true);
    // Without burst, nothing is paced.
    const unpaced = reserve(emptyBudgetRow(), { rpm: 60 }, 0, 0);
    expect(unpaced.granted && unpaced.reservation.paceMs).toBe(undefined);
  });
});

describe('budget rules: tokens', () => {
  it('reserves the estimate, so concurrent requests cannot overshoot tpm together', () => {
    const row = emptyBudgetRow();
    expect(reserve(row, { tpm: 1000 }, 400, 0).granted).toBe(true);
    expect(reserve(row, { tpm: 1000 }, 400, 0).granted).toBe(true);
    // Neither has answered yet, and a third would make 1200.
    expect(reserve(row, { tpm: 1000 }, 400, 0)).toMatchObject({ granted: false, limit: 'tpm' });
  });

  it('reconciles with the usage reported: unused tokens come back, extra tokens count', () => {
    const row = emptyBudgetRow();
    const first = reserve(row, { tpm: 1000 }, 600, 0);
    if (!first.granted) throw new Error('expected a grant');
    reconcileBudget(row, first.reservation, 100);
    expect(budgetRemaining(row, { tpm: 1000, tpd: 5000 }, windows, 1)).toEqual({
      tpm: 900,
      tpd: 4900,
    });
    reconcileBudget(row, { ...first.reservation, tokens: 100 }, 1500);
    expect(budgetRemaining(row, { tpm: 1000 }, windows, 1)).toEqual({ tpm: 0 });
    expect(reserve(row, { tpm: 1000 }, 1, 2)).toMatchObject({ granted: false, limit: 'tpm' });
  });

  it('reconciling after the reservation left the window changes nothing', () => {
    const row = emptyBudgetRow();
    const first = reserve(row, { tpm: 1000 }, 600, 0);
    if (!first.granted) throw new Error('expected a grant');
    expect(reserve(row, { tpm: 1000 }, 10, 61_000).granted).toBe(true); // prunes the first slice
    reconcileBudget(row, first.reservation, 900);
    expect(budgetRemaining(row, { tpm: 1000 }, windows, 61_000)).toEqual({ tpm: 990 });
  });

  it('waits until enough tokens have left, oldest slices first', () => {
    const row = emptyBudgetRow();
    reserve(row, { tpm: 1000 }, 300, 0);
    reserve(row, { tpm: 1000 }, 300, 5_000);
    reserve(row, { tpm: 1000 }, 300, 9_000);
    // 900 used: 500 more fit once 300 (0 s) and 300 (5 s) have left: at 5 000 + 1 000 + 60 000.
    expect(reserve(row, { tpm: 1000 }, 500, 10_000)).toEqual({
      granted: false,
      limit: 'tpm',
      waitMs: 56_000,
    });
  });

  it('over several limits, the answer is the longest wait of them', () => {
    const row = emptyBudgetRow();
    const limits = { rpm: 2, tpm: 1000 };
    reserve(row, limits, 100, 0);
    reserve(row, limits, 900, 30_000);
    // rpm frees when the first request leaves (61 s); 500 tokens fit only once both have (91 s).
    expect(reserve(row, limits, 500, 31_000)).toEqual({
      granted: false,
      limit: 'tpm',
      waitMs: 60_000,
    });
  });

  it('a request larger than tpm is admitted once the window is empty, not never', () => {
    const row = emptyBudgetRow();
    expect(reserve(row, { tpm: 100 }, 500, 0).granted).toBe(true);
    expect(reserve(row, { tpm: 100 }, 500, 1)).toMatchObject({ granted: false, waitMs: 60_999 });
  });

  it('tpd counts over the day and reports the longest wait of the limits exhausted', () => {
    const row = emptyBudgetRow();
    expect(reserve(row, { tpm: 1000, tpd: 1500 }, 1000, 0).granted).toBe(true);
    expect(reserve(row, { tpm: 1000, tpd: 1500 }, 1000, 61_000)).toEqual({
      granted: false,
      limit: 'tpd',
      waitMs: 86_400_000 + 3_600_000 - 61_000,
    });
  });

  it('the minute and the day can be scaled', () => {
    const scaled = resolveBudgetWindows({ minuteMs: 600, dayMs: 6000 });
    const row = emptyBudgetRow();
    expect(reserveBudget(row, 'k', { rpm: 1 }, 0, scaled, 0).granted).toBe(true);
    expect(reserveBudget(row, 'k', { rpm: 1 }, 0, scaled, 500)).toEqual({
      granted: false,
      limit: 'rpm',
      waitMs: 110, // slice of 10 ms: counts until 10 + 600
    });
  });
});

describe('budget rules: options', () => {
  it('refuses limits and windows that cannot work, naming them', () => {
    for (const limits of [{ rpm: 0 }, { tpm: 1.5 }, { tpd: -1 }, { rpm: 1, burst: 0 }]) {
      expect(() => checkBudgetLimits(limits, 'budgets.p/m')).toThrow(HealthConfigError);
    }
    expect(() => checkBudgetLimits({ rpm: 0 }, 'budgets.x')).toThrow('budgets.x.rpm');
    expect(() => resolveBudgetWindows({ minuteMs: 0 })).toThrow('minuteMs');
    expect(() => resolveBudgetWindows({ dayMs: Number.POSITIVE_INFINITY })).toThrow('dayMs');
    expect(checkBudgetLimits({ rpm: 1, tpm: 2, tpd: 3 })).toEqual({ rpm: 1, tpm: 2, tpd: 3 });
    expect(() => checkBudgetLimits({ rpm: 1, burst: 1.5 }, 'budgets.x')).toThrow('budgets.x.burst');
  });
});
