import { describe, expect, it } from 'vitest';
import { createAttemptPlan } from '../src/attempt-plan';
import type { ChainModel } from '../src/model-chain';

/**
 * The attempt plan's contract, one rule at a time, on a clock the test moves (the Stryker
 * survivors of attempt-plan): which waits count for which model, the sooner of two retry times,
 * resting a dropped model, an unknown model, partly blocked models, and what a new pass lifts.
 */
function setup() {
  let at = 1_000;
  const chain: ChainModel[] = [
    { key: 'a/m', providerId: 'a', model: 'm', profiles: ['k1', 'k2'] },
    { key: 'b/f', providerId: 'b', model: 'f', profiles: ['b1'] },
  ];
  const plan = createAttemptPlan(chain, () => at);
  return {
    plan,
    advance: (ms: number) => {
      at += ms;
    },
  };
}
const k1 = { providerId: 'a', model: 'm', profileId: 'k1' };
const k2 = { providerId: 'a', model: 'm', profileId: 'k2' };
const b1 = { providerId: 'b', model: 'f', profileId: 'b1' };

describe('createAttemptPlan', () => {
  it('shortestWait(model) counts only that model’s waits', () => {
    const { plan } = setup();
    plan.blockProfile(b1, 500);
    plan.blockProfile(k1, 3_000);
    expect(plan.shortestWait(k1)).toBe(3_000);
    expect(plan.shortestWait()).toBe(500);
  });

  it('a model dropped twice keeps the sooner retry time', () => {
    const { plan } = setup();
    plan.dropModel(k1, 5_000);
    plan.dropModel(k1, 1_000);
    plan.dropModel(k1);
    expect(plan.shortestRetry()).toBe(1_000);
  });

  it('a dropped model does not rest: it stays given up after a new pass', () => {
    const { plan, advance } = setup();
    plan.dropModel(k1);
    plan.restModel(k1, 100);
    expect(plan.shortestRetry()).toBeUndefined();
    advance(200);
    plan.newPass();
    expect(plan.next()).toEqual(b1);
    expect(plan.shortestRetry()).toBeUndefined();
  });

  it('a target of a model not in the chain has no other profile', () => {
    const { plan } = setup();
    expect(plan.hasOtherProfile({ providerId: 'x', model: 'y', profileId: 'p' })).toBe(false);
  });

  it('another model with one of its profiles usable counts as another model', () => {
    const { plan } = setup();
    plan.blockProfile(k1);
    expect(plan.hasOtherModel(b1)).toBe(true);
    plan.blockProfile(k2);
    expect(plan.hasOtherModel(b1)).toBe(false);
  });

  it('a new pass lifts only the skips, rests and blocks whose time has come; a block without a time stays', () => {
    const { plan, advance } = setup();
    plan.skipModel(b1, 1_000);
    plan.blockProfile(k1, 1_000);
    plan.blockProfile(k2);
    advance(500);
    plan.newPass();
    expect(plan.next()).toBeUndefined();
    advance(500);
    plan.newPass();
    expect(plan.next()).toEqual(k1);
    plan.blockProfile(k1);
    expect(plan.next()).toEqual(b1);

    const rested = setup();
    rested.plan.restModel(k1, 1_000);
    rested.plan.dropModel(b1);
    rested.advance(999);
    rested.plan.newPass();
    expect(rested.plan.next()).toBeUndefined();
    rested.advance(1);
    rested.plan.newPass();
    expect(rested.plan.next()).toEqual(k1);
  });
});
