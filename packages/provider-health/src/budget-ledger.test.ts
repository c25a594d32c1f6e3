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
});
