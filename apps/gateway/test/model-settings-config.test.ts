// `models.settings` and `health` in keel.config.json: what is accepted, what is refused (naming
// the key), the defaults, and what reaches the orchestrator and the start-up log.
import { describe, expect, it } from 'vitest';
import { healthRulesOf } from '../src/compose/create-storage';
import {
  configuredModels,
  effectiveModelSettings,
  orchestratorModelSettings,
} from '../src/compose/model-settings';
import { configSchema, type KeelConfigInput } from '../src/config/config-schema';

const base = {
  providers: [
    { id: 'a', api: 'anthropic-messages', profiles: [{ id: 'k', apiKey: 'sk-a' }], maxTokens: 900 },
    { id: 'o', api: 'openai-chat', profiles: [{ id: 'k', apiKey: 'sk-o' }] },
  ],
  models: { primary: 'a/big', fallbacks: ['o/small'] },
} satisfies KeelConfigInput;

const problems = (input: unknown) => {
  const result = configSchema.safeParse(input);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('models.settings', () => {
  it('defaults to no settings; health to its documented defaults', () => {
    const config = configSchema.parse(base);
    expect(config.models.settings).toEqual({});
    expect(config.health).toEqual({
      windowMs: 30_000,
      minFailures: 3,
      failureRatio: 0.5,
      cooldownMs: 10_000,
      maxCooldownMs: 30_000,
      probeTimeoutMs: 60_000,
    });
  });

  it('accepts every field, prices included', () => {
    const settings = {
      'a/big': {
        contextWindowTokens: 200_000,
        maxOutputTokens: 8_192,
        firstTokenTimeoutMs: 20_000,
        stallTimeoutMs: 15_000,
        prices: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      },
      'o/other': { prices: { input: 0, output: 0 } },
    };
    const config = configSchema.parse({ ...base, models: { ...base.models, settings } });
    expect(config.models.settings).toEqual(settings);
  });

  it('names a key whose provider is not configured', () => {
    expect(
      problems({ ...base, models: { ...base.models, settings: { 'nosuch/model': {} } } }),
    ).toEqual([
      'models.settings.nosuch/model: "nosuch/model" names provider "nosuch", which is not in providers ("a", "o")',
    ]);
  });

  it('refuses a key that is not providerId/model, bad numbers and unknown fields', () => {
    const found = problems({
      ...base,
      models: {
        ...base.models,
        settings: {
          'no-slash': {},
          'a/big': {
            contextWindowTokens: 0,
            maxOutputTokens: 1.5,
            firstTokenTimeoutMs: -1,
            stallTimeoutMs: '5',
            prices: { input: -1, output: 1 },
            window: 5,
          },
          'o/small': { prices: { input: 1 } },
        },
      },
    });
    const paths = found.map((line) => line.slice(0, line.indexOf(':')));
    expect(paths).toEqual(
      expect.arrayContaining([
        'models.settings.no-slash',
        'models.settings.a/big.contextWindowTokens',
        'models.settings.a/big.maxOutputTokens',
        'models.settings.a/big.firstTokenTimeoutMs',
        'models.settings.a/big.stallTimeoutMs',
        'models.settings.a/big.prices.input',
        'models.settings.a/big',
        'models.settings.o/small.prices.output',
      ]),
    );
  });

  it('reaches the orchestrator without prices', () => {
    const config = configSchema.parse({
      ...base,
      models: {
        ...base.models,
        settings: {
          'a/big': { contextWindowTokens: 1000, prices: { input: 1, output: 2 } },
          'o/small': { prices: { input: 1, output: 2 } },
        },
      },
    });
    expect(orchestratorModelSettings(config)).toEqual({
      'a/big': { contextWindowTokens: 1000 },
      'o/small': {},
    });
  });

  it('effective settings: the model own value, else the turn-wide or provider default', () => {
    const config = configSchema.parse({
      ...base,
      turn: { firstTokenTimeoutMs: 40_000, stallTimeoutMs: 25_000 },
      models: {
        ...base.models,
        settings: {
          'o/small': { firstTokenTimeoutMs: 5_000, maxOutputTokens: 512 },
          'o/extra': { contextWindowTokens: 1_000_000, prices: { input: 1, output: 4 } },
        },
      },
    });
    expect(configuredModels(config)).toEqual(['a/big', 'o/small', 'o/extra']);
    expect(effectiveModelSettings(config)).toEqual([
      {
        model: 'a/big',
        role: 'primary',
        contextWindowTokens: null,
        maxOutputTokens: 900,
        firstTokenTimeoutMs: 40_000,
        stallTimeoutMs: 25_000,
        prices: null,
      },
      {
        model: 'o/small',
        role: 'fallback',
        contextWindowTokens: null,
        maxOutputTokens: 512,
        firstTokenTimeoutMs: 5_000,
        stallTimeoutMs: 25_000,
        prices: null,
      },
      {
        model: 'o/extra',
        role: 'selectable',
        contextWindowTokens: 1_000_000,
        maxOutputTokens: null,
        firstTokenTimeoutMs: 40_000,
        stallTimeoutMs: 25_000,
        prices: { input: 1, output: 4 },
      },
    ]);
  });
});

describe('health', () => {
  it('refuses out-of-range values and a cap below the cooldown', () => {
    expect(
      problems({ ...base, health: { failureRatio: 0, minFailures: 0, windowMs: 1.5 } }).map(
        (line) => line.slice(0, line.indexOf(':')),
      ),
    ).toEqual(['health.windowMs', 'health.minFailures', 'health.failureRatio']);
    expect(problems({ ...base, health: { cooldownMs: 5_000, maxCooldownMs: 1_000 } })).toEqual([
      'health.maxCooldownMs: maxCooldownMs must be at least cooldownMs',
    ]);
  });

  it('reaches the provider health by its option names, with retry.maxWaitMs as the long retry-after', () => {
    const config = configSchema.parse({
      ...base,
      retry: { maxWaitMs: 7_000 },
      health: {
        windowMs: 1_000,
        minFailures: 2,
        failureRatio: 0.25,
        cooldownMs: 500,
        maxCooldownMs: 4_000,
        probeTimeoutMs: 9_000,
      },
    });
    expect(healthRulesOf(config)).toEqual({
      windowMs: 1_000,
      minFailures: 2,
      failureRatio: 0.25,
      breakerCooldownMs: 500,
      maxBreakerCooldownMs: 4_000,
      probeTimeoutMs: 9_000,
      longRetryAfterMs: 7_000,
    });
  });
});
