// Every option resolveSettings checks refuses what cannot work, naming the option in `path`,
// and accepts its edge: counts are whole numbers ≥ 0, durations numbers ≥ 0, the rest numbers
// > 0, none of them infinite. Model references, providers and per-model settings are checked too,
// and the defaults hold when an option is left out.
import { describe, expect, it } from 'vitest';
import type { OrchestratorOptions } from '../src/index';
import { resolveSettings } from '../src/resolve-settings';

const base: OrchestratorOptions = {
  storage: {} as never,
  fences: (() => undefined) as never,
  router: { connect: () => undefined as never },
  providers: [
    { id: 'anthropic', profiles: [{ id: 'k1' }] },
    { id: 'backup', profiles: [{ id: 'b1' }] },
  ],
  models: { primary: 'anthropic/primary' },
};
const resolve = (options: Partial<OrchestratorOptions>) => resolveSettings({ ...base, ...options });
/** The `path` of the config error `options` raise, or `undefined` when they are accepted. */
function refused(options: Partial<OrchestratorOptions>): string | undefined {
  try {
    resolve(options);
    return undefined;
  } catch (error) {
    expect(error).toMatchObject({ name: 'OrchestratorConfigError' });
    return (error as { path: string }).path;
  }
}

describe('resolveSettings checks each option', () => {
  it.each([
    ['retry.maxRetries', (n: number) => ({ retry: { maxRetries: n } })],
    ['retry.maxWaits', (n: number) => ({ retry: { maxWaits: n } })],
    ['maxModelSwitches', (n: number) => ({ maxModelSwitches: n })],
  ])('%s: a whole number ≥ 0', (path, make) => {
    expect(refused(make(0))).toBeUndefined();
    expect(refused(make(3))).toBeUndefined();
    expect(refused(make(-1))).toBe(path);
    expect(refused(make(1.5))).toBe(path);
  });

  it.each([
    ['retry.maxWaitMs', (n: number) => ({ retry: { maxWaitMs: n } })],
    ['retry.baseDelayMs', (n: number) => ({ retry: { baseDelayMs: n } })],
    ['retry.maxDelayMs', (n: number) => ({ retry: { maxDelayMs: n } })],
  ])('%s: a number ≥ 0', (path, make) => {
    expect(refused(make(0))).toBeUndefined();
    expect(refused(make(0.5))).toBeUndefined();
    expect(refused(make(-0.5))).toBe(path);
    expect(refused(make(Number.POSITIVE_INFINITY))).toBe(path);
    expect(refused(make(Number.NaN))).toBe(path);
  });

  it.each([
    ['maxSteps', (n: number) => ({ maxSteps: n })],
    ['toolTimeoutMs', (n: number) => ({ toolTimeoutMs: n })],
    ['turnTimeoutMs', (n: number) => ({ turnTimeoutMs: n })],
    ['maxReplyBytes', (n: number) => ({ maxReplyBytes: n })],
    ['callTimeouts.timeoutMs', (n: number) => ({ callTimeouts: { timeoutMs: n } })],
    [
      'callTimeouts.firstTokenTimeoutMs',
      (n: number) => ({ callTimeouts: { firstTokenTimeoutMs: n } }),
    ],
    ['callTimeouts.stallTimeoutMs', (n: number) => ({ callTimeouts: { stallTimeoutMs: n } })],
  ])('%s: a number > 0', (path, make) => {
    expect(refused(make(0.5))).toBeUndefined();
    expect(refused(make(0))).toBe(path);
    expect(refused(make(-1))).toBe(path);
    expect(refused(make(Number.POSITIVE_INFINITY))).toBe(path);
  });

  it('queueMode: followup or steer, the wrong value quoted', () => {
    expect(resolve({ queueMode: 'steer' }).queueMode).toBe('steer');
    expect(() => resolve({ queueMode: 'collect' as never })).toThrow(
      'queueMode must be "followup" or "steer", not "collect"',
    );
  });

  it('providers: each id once', () => {
    expect(() =>
      resolve({
        providers: [...(base.providers ?? []), { id: 'backup', profiles: [{ id: 'b2' }] }],
      }),
    ).toThrow('Provider "backup" is configured twice');
    expect(refused({ providers: [...base.providers, { id: 'anthropic', profiles: [] }] })).toBe(
      'providers',
    );
  });

  it('models: `providerId/model` of a configured provider with profiles', () => {
    for (const primary of ['primary', '/primary', 'anthropic/']) {
      expect(() => resolve({ models: { primary } })).toThrow(
        `Model "${primary}" is not of the form providerId/model`,
      );
    }
    expect(resolve({ models: { primary: 'anthropic/a/b' } }).primary).toBe('anthropic/a/b');
    expect(() => resolve({ models: { primary: 'other/m' } })).toThrow(
      'Model "other/m" names provider "other", which is not configured',
    );
    expect(() =>
      resolve({
        providers: [{ id: 'anthropic', profiles: [] }],
        models: { primary: 'anthropic/m' },
      }),
    ).toThrow('Provider "anthropic" has no auth profiles');
    expect(refused({ models: { primary: 'anthropic/m', fallbacks: ['nowhere/m'] } })).toBe(
      'models',
    );
  });

  it('models.settings: an object per configured model, each number > 0, only the fields given', () => {
    const settings = resolve({
      models: {
        primary: 'anthropic/primary',
        settings: { 'backup/large': { contextWindowTokens: 200_000, stallTimeoutMs: 5_000 } },
      },
    });
    expect(settings.modelSettings.get('backup/large')).toStrictEqual({
      contextWindowTokens: 200_000,
      stallTimeoutMs: 5_000,
    });
    expect([...settings.selectable].sort()).toEqual(['anthropic/primary', 'backup/large']);
    expect(
      refused({
        models: { primary: 'anthropic/primary', settings: { 'backup/large': null as never } },
      }),
    ).toBe('models.settings.backup/large');
    expect(
      refused({
        models: { primary: 'anthropic/primary', settings: { 'backup/large': 5 as never } },
      }),
    ).toBe('models.settings.backup/large');
    expect(
      refused({
        models: {
          primary: 'anthropic/primary',
          settings: { 'backup/large': { maxOutputTokens: 0 } },
        },
      }),
    ).toBe('models.settings.backup/large.maxOutputTokens');
    expect(
      refused({ models: { primary: 'anthropic/primary', settings: { 'nowhere/m': {} } } }),
    ).toBe('models');
  });

  it('the defaults', () => {
    const settings = resolve({});
    expect(settings).toMatchObject({
      maxRetries: 1,
      maxWaitMs: 10_000,
      maxWaits: 2,
      baseDelayMs: 500,
      maxDelayMs: 8_000,
      maxSteps: 16,
      toolTimeoutMs: 60_000,
      maxModelSwitches: 2,
      turnTimeoutMs: 600_000,
      callTimeouts: { timeoutMs: 300_000, firstTokenTimeoutMs: 30_000, stallTimeoutMs: 30_000 },
      queueMode: 'followup',
      fallbacks: [],
    });
    expect(settings.modelSettings.size).toBe(0);
    expect([...settings.selectable]).toEqual(['anthropic/primary']);
  });
});
