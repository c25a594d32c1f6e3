// What a refused option's OrchestratorConfigError says (resolve-settings.ts): its message names
// the option and what it must be, and its `path` names the option, for every kind of check —
// the queue mode, a model's settings that are not an object, counts, durations and the numbers
// that must be above zero.
import { describe, expect, it } from 'vitest';
import type { OrchestratorOptions } from '../src/index';
import { resolveSettings } from '../src/resolve-settings';

const base: OrchestratorOptions = {
  storage: {} as never,
  fences: (() => undefined) as never,
  router: { connect: () => undefined as never },
  providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
  models: { primary: 'anthropic/primary' },
};

/** The error `options` raise, with the members a caller reads. */
function refusal(options: Partial<OrchestratorOptions>): unknown {
  try {
    resolveSettings({ ...base, ...options });
  } catch (error) {
    return error;
  }
  throw new Error('the options were accepted');
}

describe('a refused option', () => {
  it('queueMode: the path names the option', () => {
    expect(refusal({ queueMode: 'collect' as never })).toMatchObject({
      name: 'OrchestratorConfigError',
      path: 'queueMode',
      message: 'queueMode must be "followup" or "steer", not "collect"',
    });
  });

  it('a model’s settings that are not an object', () => {
    const settings = { 'anthropic/primary': 'fast' as never };
    expect(refusal({ models: { primary: 'anthropic/primary', settings } })).toMatchObject({
      path: 'models.settings.anthropic/primary',
      message: 'models.settings.anthropic/primary must be an object',
    });
  });

  it('a count that is not a whole number ≥ 0', () => {
    expect(refusal({ retry: { maxRetries: 1.5 } })).toMatchObject({
      path: 'retry.maxRetries',
      message: 'retry.maxRetries must be a whole number ≥ 0',
    });
  });

  it('a duration that is not a number ≥ 0', () => {
    expect(refusal({ retry: { baseDelayMs: -1 } })).toMatchObject({
      path: 'retry.baseDelayMs',
      message: 'retry.baseDelayMs must be a number ≥ 0',
    });
  });

  it('a number that is not > 0', () => {
    expect(refusal({ maxSteps: 0 })).toMatchObject({
      path: 'maxSteps',
      message: 'maxSteps must be a number > 0',
    });
  });
});
