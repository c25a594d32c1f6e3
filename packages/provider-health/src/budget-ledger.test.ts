import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../test/fake-clock';
import { createBudgetLedger } from './budget-ledger';

describe('createBudgetLedger', () => {
  it('keeps each key apart and frees budget as its clock moves', async () => {
    const clock = createFakeClock(0);
    const ledger = createBudgetLedger({ clock });
    expect((await ledger.reserve('a', { rpm: 1 }, 0)).granted).toBe(true);
    expect((await ledger.reserve('b', { rpm: 1 }, 0)).granted).toBe(true);
    expect(await ledger.reserve('a', { rpm: 1 }, 0)).toEqual({
      granted: false,
      limit: 'rpm',
      waitMs: 61_000,
    });
    clock.advance(61_000);
    expect((await ledger.reserve('a', { rpm: 1 }, 0)).granted).toBe(true);
  });

  it('reconciles a reservation and reports what is left', async () => {
    const ledger = createBudgetLedger({ clock: createFakeClock(0) });
    const decision = await ledger.reserve('a', { tpm: 1000 }, 800);
    if (!decision.granted) throw new Error('expected a grant');
    expect(decision.reservation).toMatchObject({ key: 'a', tokens: 800 });
    expect(await ledger.remaining('a', { rpm: 10, tpm: 1000 })).toEqual({ rpm: 9, tpm: 200 });
    await ledger.reconcile(decision.reservation, 50);
    expect(await ledger.remaining('a', { rpm: 10, tpm: 1000 })).toEqual({ rpm: 9, tpm: 950 });
    expect(await ledger.remaining('never-seen', { tpd: 5 })).toEqual({ tpd: 5 });
    await ledger.cancel(decision.reservation);
    expect(await ledger.remaining('a', { rpm: 10, tpm: 1000 })).toEqual({ rpm: 10, tpm: 1000 });
  });

  it('takes its minute from minuteMs, and refuses bad limits when asked', async () => {
    const clock = createFakeClock(0);
    const ledger = createBudgetLedger({ clock, minuteMs: 1000 });
    await ledger.reserve('a', { rpm: 1 }, 0);
    expect(await ledger.reserve('a', { rpm: 1 }, 0)).toMatchObject({ waitMs: 1017 });
    await expect(ledger.reserve('a', { rpm: 0 }, 0)).rejects.toThrow('budgets.rpm');
    expect(() => createBudgetLedger({ minuteMs: -1 })).toThrow('minuteMs');
  });

  it('records tokens with no reservation: in the minute and the day, no request, and the token pace', async () => {
    const clock = createFakeClock(0);
    const ledger = createBudgetLedger({ clock, minuteMs: 6_000, dayMs: 60_000 });
    const limits = { rpm: 5, tpm: 1_000, tpd: 3_000 };
    await ledger.record('a', limits, 399.2);
    expect(await ledger.remaining('a', limits)).toEqual({ rpm: 5, tpm: 600, tpd: 2_600 });
    // Counted now: it leaves the minute a minute (and a slice) later, the day a day later.
    clock.advance(6_100);
    expect(await ledger.remaining('a', limits)).toEqual({ rpm: 5, tpm: 1_000, tpd: 2_600 });
    // Nothing used, nothing counted; another key untouched.
    await ledger.record('a', limits, 0);
    expect(await ledger.remaining('b', limits)).toEqual({ rpm: 5, tpm: 1_000, tpd: 3_000 });
    // What it recorded refuses what would not fit beside it, in the minute...
    await ledger.record('a', limits, 900);
    expect(await ledger.reserve('a', limits, 200)).toMatchObject({ granted: false, limit: 'tpm' });
    expect((await ledger.reserve('a', limits, 100)).granted).toBe(true);
    // ...and paced, it moves the token pace on (6 ms a token: 300 tokens, 1.8 s).
    const paced = { tpm: 1_000, tpmBurst: 100 };
    await ledger.record('p', paced, 300);
    expect(await ledger.reserve('p', paced, 100)).toEqual({
      granted: false,
      limit: 'tpm',
      waitMs: 1_800,
    });
    clock.advance(1_800);
    expect((await ledger.reserve('p', paced, 100)).granted).toBe(true);
    // A pace long past starts from now, not from where it stood.
    clock.advance(10_000);
    await ledger.record('p', paced, 300);
    expect(await ledger.reserve('p', paced, 100)).toMatchObject({ waitMs: 1_800 });
  });
});
