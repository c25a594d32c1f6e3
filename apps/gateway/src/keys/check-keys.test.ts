import { describe, expect, it } from 'vitest';
import { configSchema, type KeelConfigInput } from '../config/config-schema';
import { secretsOf } from '../config/secrets-of';

const base: KeelConfigInput = {
  providers: [{ id: 'demo', api: 'demo' }],
  models: {
    primary: 'demo/a',
    fallbacks: ['demo/b'],
    settings: {
      'demo/a': { prices: { input: 1, output: 2 } },
      'demo/b': { prices: { input: 1, output: 2 } },
      'demo/c': {},
    },
  },
  routes: { cheap: { primary: 'demo/c' } },
};

function problems(keys: unknown, server: Record<string, unknown> = {}): string[] {
  const result = configSchema.safeParse({ ...base, server, keys });
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('keys in the configuration', () => {
  it('accepts keys with their limits, and defaults to none', () => {
    expect(problems([{ id: 'app', secret: 's1', models: ['default'], rpm: 5, tpm: 100 }])).toEqual(
      [],
    );
    expect(configSchema.parse(base).keys).toEqual([]);
  });

  it('refuses an empty secret, a duplicate id or secret, and the admin token as a secret', () => {
    expect(problems([{ id: 'app', secret: '' }])).toEqual(['keys.0.secret: must not be empty']);
    expect(
      problems([
        { id: 'app', secret: 's1' },
        { id: 'app', secret: 's2' },
      ]),
    ).toEqual(['keys: key ids must be unique']);
    expect(
      problems([
        { id: 'a', secret: 's1' },
        { id: 'b', secret: 's1' },
      ]),
    ).toEqual(['keys: key secrets must be unique']);
    expect(problems([{ id: 'a', secret: 'token-1' }], { authToken: 'token-1' })).toEqual([
      'keys.0.secret: must differ from server.authToken',
    ]);
  });

  it('refuses a model name that is neither a route nor a configured model', () => {
    expect(problems([{ id: 'a', secret: 's', models: ['cheap', 'demo/zz'] }])).toEqual([
      'keys.0.models: names "demo/zz", which is neither a route nor a configured model',
    ]);
  });

  it('needs prices for every model a key with a spend cap may reach, fallbacks included', () => {
    const unpricedFallback = {
      ...base.models,
      settings: { 'demo/a': { prices: { input: 1, output: 2 } } },
    };
    const check = (models: string[] | undefined) => {
      const result = configSchema.safeParse({
        ...base,
        models: unpricedFallback,
        routes: { solo: { primary: 'demo/a' }, cheap: { primary: 'demo/c' } },
        keys: [
          {
            id: 'a',
            secret: 's',
            spendCapUsd: { day: 1 },
            ...(models === undefined ? {} : { models }),
          },
        ],
      });
      return result.success ? [] : result.error.issues.map((issue) => issue.message);
    };
    expect(check(['solo'])).toEqual([]);
    // `demo/a` named directly runs the default fallbacks after it: `demo/b` has no prices.
    expect(check(['demo/a'])).toEqual([
      'needs prices for every model the key may reach; none in models.settings for demo/b',
    ]);
    // Without a list the key reaches everything.
    expect(check(undefined)).toEqual([
      'needs prices for every model the key may reach; none in models.settings for demo/b, demo/c',
    ]);
  });

  it('counts key secrets among the secrets the logger never writes', () => {
    const config = configSchema.parse({
      ...base,
      keys: [
        { id: 'a', secret: 'first-key-secret' },
        { id: 'b', secret: 'second-key-secret' },
      ],
    });
    expect(secretsOf(config)).toEqual(
      expect.arrayContaining(['first-key-secret', 'second-key-secret']),
    );
  });
});
