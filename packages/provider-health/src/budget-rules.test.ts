import { describe, expect, it } from 'vitest';
import {
  type BudgetLimits,
  type BudgetRow,
  budgetRemaining,
  cancelBudget,
  checkBudgetLimits,
  emptyBudgetRow,
  pacedBudgetLimits,
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

/** Tokens arriving per span: like `hammerArrivals`, each request `tokens` estimated and used. */
function hammerTokens(
  limits: BudgetLimits,
  tokens: number,
  delay: (at: number) => number,
): number[] {
  const row = emptyBudgetRow();
  const arrivals: number[] = [];
  for (let at = 0; at < 600_000; at += 10) {
    while (reserve(row, limits, tokens, at).granted) arrivals.push(at + delay(at));
  }
  return arrivals;
}

describe('budget rules: paced tpm (tpmBurst)', () => {
  // 6 000 tokens a minute: a token is 10 ms of pace; 300 tokens may go back to back.
  const limits = { tpm: 6_000, tpmBurst: 300 };

  it('grants while the token pace stays within tpmBurst tokens of now, then says when', () => {
    const row = emptyBudgetRow();
    expect(reserve(row, limits, 200, 0).granted).toBe(true); // pace 2 s ahead
    // 200 more would put it 4 s ahead, 1 s past the 3 s (300 tokens) allowed.
    expect(reserve(row, limits, 200, 0)).toEqual({ granted: false, limit: 'tpm', waitMs: 1000 });
    expect(reserve(row, limits, 200, 999).granted).toBe(false);
    expect(reserve(row, limits, 200, 1000).granted).toBe(true);
    // A smaller request fits sooner: 100 tokens once the pace is 2 s ahead.
    expect(reserve(row, limits, 100, 1000)).toEqual({ granted: false, limit: 'tpm', waitMs: 1000 });
    expect(reserve(row, limits, 100, 2000).granted).toBe(true);
    // Idle for a minute, the burst is there again, and no more: idle time is not saved up.
    expect(reserve(row, limits, 200, 60_000).granted).toBe(true);
    expect(reserve(row, limits, 200, 60_000)).toEqual({
      granted: false,
      limit: 'tpm',
      waitMs: 1000,
    });
  });

  it('a request larger than tpmBurst goes once the pace has caught up, never starved', () => {
    const row = emptyBudgetRow();
    expect(reserve(row, limits, 1000, 0).granted).toBe(true); // pace 10 s ahead
    expect(reserve(row, limits, 1000, 5000)).toEqual({
      granted: false,
      limit: 'tpm',
      waitMs: 5000,
    });
    expect(reserve(row, limits, 1000, 10_000).granted).toBe(true);
  });

  it('reconciles the pace with the usage reported, and a cancel gives the tokens back', () => {
    const row = emptyBudgetRow();
    const first = reserve(row, limits, 250, 0);
    if (!first.granted) throw new Error('expected a grant');
    expect(first.reservation.tokenMs).toBe(10);
    reconcileBudget(row, first.reservation, 50); // the pace is 0.5 s ahead, not 2.5 s
    expect(reserve(row, limits, 250, 0).granted).toBe(true);
    const third = reserve(row, limits, 250, 3000);
    if (!third.granted) throw new Error('expected a grant');
    reconcileBudget(row, third.reservation, 550); // 300 tokens more: the pace is at 8.5 s
    // At 5 s, 1 token may go once the pace is 2.99 s ahead.
    expect(reserve(row, limits, 1, 5000)).toEqual({ granted: false, limit: 'tpm', waitMs: 510 });
    cancelBudget(row, { ...third.reservation, tokens: 550 });
    expect(reserve(row, limits, 250, 5000).granted).toBe(true);
    // Without tpmBurst, tokens are only the window.
    const unpaced = reserve(emptyBudgetRow(), { tpm: 6_000 }, 250, 0);
    expect(unpaced.granted && unpaced.reservation.tokenMs).toBe(undefined);
  });

  it('a grant-to-arrival delay that varies by 2 s: at most tpm + 2 s of tokens + tpmBurst in any minute at the provider', () => {
    const stalls = (at: number) => (Math.floor(at / 61_000) % 2 === 0 ? 2_000 : 0);
    const tokensIn = (arrivals: number[]) => busiest(arrivals, 60_000) * 100;
    const paced = hammerTokens(limits, 100, stalls);
    expect(tokensIn(paced)).toBeLessThanOrEqual(6_000 + 200 + 300);
    expect(paced.length * 100).toBeGreaterThanOrEqual(59_000);
    const windowOnly = hammerTokens({ tpm: 6_000 }, 100, stalls);
    expect(tokensIn(windowOnly)).toBeGreaterThanOrEqual(10_000);
  });
});

describe('budget rules: the default pace of a provider budget', () => {
  it('fills burst and tpmBurst with 3 s worth (a twentieth, at least 1); explicit ones stay', () => {
    expect(pacedBudgetLimits({ rpm: 60, tpm: 100_000, tpd: 5 })).toEqual({
      rpm: 60,
      tpm: 100_000,
      tpd: 5,
      burst: 3,
      tpmBurst: 5_000,
    });
    expect(pacedBudgetLimits({ rpm: 1 })).toEqual({ rpm: 1, burst: 1 });
    expect(pacedBudgetLimits({ rpm: 601, tpm: 21 })).toEqual({
      rpm: 601,
      burst: 31,
      tpm: 21,
      tpmBurst: 2,
    });
    expect(pacedBudgetLimits({ rpm: 60, burst: 60, tpm: 9, tpmBurst: 9 })).toEqual({
      rpm: 60,
      burst: 60,
      tpm: 9,
      tpmBurst: 9,
    });
    expect(pacedBudgetLimits({ tpd: 7 })).toEqual({ tpd: 7 });
  });

  it("burst equal to rpm is the window alone: a minute's worth back to back", () => {
    const row = emptyBudgetRow();
    const limits = pacedBudgetLimits({ rpm: 5, burst: 5 });
    for (let i = 0; i < 5; i += 1) expect(reserve(row, limits, 0, 0).granted).toBe(true);
    expect(reserve(row, limits, 0, 0)).toMatchObject({ granted: false, limit: 'rpm' });
    // By default the same budget lets one go, then one every 12 s.
    const paced = emptyBudgetRow();
    expect(reserve(paced, pacedBudgetLimits({ rpm: 5 }), 0, 0).granted).toBe(true);
    expect(reserve(paced, pacedBudgetLimits({ rpm: 5 }), 0, 0)).toEqual({
      granted: false,
      limit: 'rpm',
      waitMs: 12_000,
    });
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
    for (const limits of [
      { rpm: 0 },
      { tpm: 1.5 },
      { tpd: -1 },
      { rpm: 1, burst: 0 },
      { tpm: 1, tpmBurst: 0 },
    ]) {
      expect(() => checkBudgetLimits(limits, 'budgets.p/m')).toThrow(HealthConfigError);
    }
    expect(() => checkBudgetLimits({ rpm: 0 }, 'budgets.x')).toThrow('budgets.x.rpm');
    expect(() => resolveBudgetWindows({ minuteMs: 0 })).toThrow('minuteMs');
    expect(() => resolveBudgetWindows({ dayMs: Number.POSITIVE_INFINITY })).toThrow('dayMs');
    expect(checkBudgetLimits({ rpm: 1, tpm: 2, tpd: 3 })).toEqual({ rpm: 1, tpm: 2, tpd: 3 });
    expect(() => checkBudgetLimits({ rpm: 1, burst: 1.5 }, 'budgets.x')).toThrow('budgets.x.burst');
  });
});
