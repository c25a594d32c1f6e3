import { describe, expect, it } from 'vitest';
import { createSpendLedger } from './create-spend-ledger';

const at = (iso: string) => Date.parse(iso);

describe('createSpendLedger', () => {
  it('reaches a daily cap, and a new UTC day starts from zero while the month goes on', () => {
    let now = at('2026-03-31T23:59:59.000Z');
    const ledger = createSpendLedger({ now: () => now });
    ledger.add('app', 0.6);
    expect(ledger.capReached('app', { day: 1 })).toBeUndefined();
    ledger.add('app', 0.4);
    expect(ledger.capReached('app', { day: 1 })).toBe('day');
    expect(ledger.capReached('other', { day: 1 })).toBeUndefined();
    now = at('2026-04-01T00:00:00.000Z');
    expect(ledger.capReached('app', { day: 1 })).toBeUndefined();
    // April is a new month too.
    expect(ledger.spent('app')).toEqual({
      day: { period: '2026-04-01', usd: 0 },
      month: { period: '2026-04', usd: 0 },
    });
  });

  it('keeps the month over its days until the month turns', () => {
    let now = at('2026-05-01T10:00:00.000Z');
    const ledger = createSpendLedger({ now: () => now });
    ledger.add('app', 3);
    now = at('2026-05-02T10:00:00.000Z');
    ledger.add('app', 2);
    expect(ledger.capReached('app', { day: 10, month: 5 })).toBe('month');
    expect(ledger.spent('app').day.usd).toBe(2);
    now = at('2026-05-31T23:59:59.999Z');
    expect(ledger.capReached('app', { month: 5 })).toBe('month');
    now = at('2026-06-01T00:00:00.000Z');
    expect(ledger.capReached('app', { month: 5 })).toBeUndefined();
  });

  it('starts again from a snapshot, counting only its current periods', () => {
    let now = at('2026-07-10T12:00:00.000Z');
    let changes = 0;
    const first = createSpendLedger({ now: () => now, onChange: () => (changes += 1) });
    first.add('app', 4);
    first.add('app', 0);
    expect(changes).toBe(1);
    const again = createSpendLedger({ now: () => now, initial: first.snapshot() });
    expect(again.capReached('app', { day: 4 })).toBe('day');
    now = at('2026-07-11T12:00:00.000Z');
    const nextDay = createSpendLedger({ now: () => now, initial: first.snapshot() });
    expect(nextDay.spent('app')).toEqual({
      day: { period: '2026-07-11', usd: 0 },
      month: { period: '2026-07', usd: 4 },
    });
  });
});
