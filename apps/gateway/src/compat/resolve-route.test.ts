import { describe, expect, it } from 'vitest';
import { configSchema, type KeelConfigInput } from '../config/config-schema';
import { resolveRoute, routeNames } from './resolve-route';
import { streamModeOf } from './stream-mode';

const base = {
  providers: [
    { id: 'a', api: 'anthropic-messages', profiles: [{ id: 'k', apiKey: 'sk-a' }] },
    { id: 'o', api: 'openai-chat', profiles: [{ id: 'k', apiKey: 'sk-o' }] },
  ],
  models: { primary: 'a/big', fallbacks: ['o/small'], settings: { 'a/huge': {} } },
  routes: { fast: { primary: 'o/small', fallbacks: ['a/big'] } },
} satisfies KeelConfigInput;
const config = configSchema.parse(base);

describe('resolveRoute', () => {
  it('a route name, `default` (the models chain), or a configured providerId/model then the default fallbacks', () => {
    expect(resolveRoute(config, 'fast')).toEqual({
      name: 'fast',
      primary: 'o/small',
      fallbacks: ['a/big'],
    });
    expect(resolveRoute(config, 'default')).toEqual({
      name: 'default',
      primary: 'a/big',
      fallbacks: ['o/small'],
    });
    expect(resolveRoute(config, 'a/huge')).toEqual({
      name: 'a/huge',
      primary: 'a/huge',
      fallbacks: ['o/small'],
    });
    // The model named is not repeated among its own fallbacks.
    expect(resolveRoute(config, 'o/small')?.fallbacks).toEqual([]);
  });

  it('anything else is unknown: an unconfigured model, a provider-less name, a typo', () => {
    expect(resolveRoute(config, 'a/typo')).toBeUndefined();
    expect(resolveRoute(config, 'gpt-4o')).toBeUndefined();
    expect(resolveRoute(config, 'nowhere/big')).toBeUndefined();
  });

  it('routes.default replaces the models chain for the compatible endpoints', () => {
    const withDefault = configSchema.parse({
      ...base,
      routes: { default: { primary: 'o/small' } },
    });
    expect(resolveRoute(withDefault, 'default')).toEqual({
      name: 'default',
      primary: 'o/small',
      fallbacks: [],
    });
  });

  it('lists routes first, then every configured model', () => {
    expect(routeNames(config)).toEqual(['default', 'fast', 'a/big', 'a/huge', 'o/small']);
  });

  it('refuses a route naming an unconfigured provider, or a name with a slash', () => {
    const issues = (input: unknown) => {
      const result = configSchema.safeParse(input);
      return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
    };
    expect(issues({ ...base, routes: { bad: { primary: 'nowhere/x' } } })).toEqual([
      'routes.bad.primary',
    ]);
    expect(issues({ ...base, routes: { 'a/b': { primary: 'a/big' } } })).toEqual(['routes.a/b']);
  });
});

describe('streamModeOf', () => {
  it('the header wins over compat.streamMode; an unknown value is undefined (a 400)', () => {
    expect(streamModeOf(undefined, config)).toBe('live');
    expect(streamModeOf('buffered', config)).toBe('buffered');
    const buffered = configSchema.parse({ ...base, compat: { streamMode: 'buffered' } });
    expect(streamModeOf(undefined, buffered)).toBe('buffered');
    expect(streamModeOf('live', buffered)).toBe('live');
    expect(streamModeOf('fast', config)).toBeUndefined();
  });
});
