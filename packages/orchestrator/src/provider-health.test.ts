import * as rules from '@keel/provider-health';
import { HealthConfigError } from '@keel/provider-health';
import { describe, expect, it } from 'vitest';
import { resolveHealthRules, WINDOW_SLICES } from './health-rules';
import { createProviderHealth, OrchestratorConfigError } from './index';

// The provider health and its rules are `@keel/provider-health`'s; this package keeps exporting
// them, with the `OrchestratorConfigError` it always raised for options that cannot work.
describe('the provider health this package re-exports', () => {
  it('is the in-process health: a breaker opens on evidence across profiles', async () => {
    const health = createProviderHealth();
    const target = { providerId: 'p', profileId: 'k1', model: 'm' };
    for (let i = 0; i < 3; i += 1) {
      await health.report({ type: 'failure', target, kind: 'server_error', probe: false });
    }
    expect(await health.permit({ ...target, profileId: 'k2' })).toMatchObject({
      allowed: false,
      reason: 'breaker-open',
    });
  });

  it.each([
    ['createProviderHealth', () => createProviderHealth({ failureRatio: 1.5 }), 'failureRatio'],
    ['health-rules resolveHealthRules', () => resolveHealthRules({ windowMs: 0 }), 'windowMs'],
  ])('%s refuses options as OrchestratorConfigError naming the option', (_name, make, path) => {
    let refused: unknown;
    try {
      make();
    } catch (error) {
      refused = error;
    }
    expect(OrchestratorConfigError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({ name: 'OrchestratorConfigError', path });
    expect(String(refused)).toMatch(new RegExp(`${path} must be`));
    expect(HealthConfigError.isInstance((refused as Error).cause)).toBe(true);
  });

  it('health-rules resolves the same defaults and shares the rest', () => {
    expect(resolveHealthRules()).toEqual(rules.resolveHealthRules());
    expect(WINDOW_SLICES).toBe(rules.WINDOW_SLICES);
  });
});
