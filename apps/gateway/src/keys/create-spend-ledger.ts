// What each key spent in the current UTC day and month: a call's cost is added when it ends, and
// a new day or month starts from zero. The totals survive a restart through `snapshot`.

export type SpendPeriod = 'day' | 'month';

/** One period's total: `period` is `YYYY-MM-DD` (day) or `YYYY-MM` (month), in UTC. */
export interface PeriodSpend {
  period: string;
  usd: number;
}

export interface KeySpend {
  day: PeriodSpend;
  month: PeriodSpend;
}

/** What the ledger keeps between restarts. */
export interface SpendSnapshot {
  version: 1;
  keys: Record<string, KeySpend>;
}

export interface SpendLedger {
  add(keyId: string, usd: number): void;
  /** The key's spend in the current day and month (zero in a period it has not spent in). */
  spent(keyId: string): KeySpend;
  /** The first cap the key has reached, if any. */
  capReached(keyId: string, caps: { day?: number; month?: number }): SpendPeriod | undefined;
  snapshot(): SpendSnapshot;
}

export interface SpendLedgerOptions {
  /** Clock ms; default `Date.now`. */
  now?: () => number;
  /** Totals saved before (older periods in it count as zero). */
  initial?: SpendSnapshot;
  /** Called after every change (to save the snapshot). */
  onChange?: () => void;
}

export function periodOf(period: SpendPeriod, at: number): string {
  const iso = new Date(at).toISOString();
  return period === 'day' ? iso.slice(0, 10) : iso.slice(0, 7);
}

export function createSpendLedger(options: SpendLedgerOptions = {}): SpendLedger {
  const now = options.now ?? Date.now;
  const totals = new Map<string, KeySpend>(Object.entries(options.initial?.keys ?? {}));

  const current = (keyId: string): KeySpend => {
    const at = now();
    const day = periodOf('day', at);
    const month = periodOf('month', at);
    const kept = totals.get(keyId);
    return {
      day: kept?.day.period === day ? { ...kept.day } : { period: day, usd: 0 },
      month: kept?.month.period === month ? { ...kept.month } : { period: month, usd: 0 },
    };
  };

  return {
    add(keyId, usd) {
      if (!(usd > 0)) return;
      const spend = current(keyId);
      spend.day.usd += usd;
      spend.month.usd += usd;
      totals.set(keyId, spend);
      options.onChange?.();
    },
    spent: current,
    capReached(keyId, caps) {
      const spend = current(keyId);
      if (caps.day !== undefined && spend.day.usd >= caps.day) return 'day';
      if (caps.month !== undefined && spend.month.usd >= caps.month) return 'month';
      return undefined;
    },
    snapshot: () => ({ version: 1, keys: Object.fromEntries(totals) }),
  };
}
