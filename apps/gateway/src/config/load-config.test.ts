import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keel-load-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The configuration's `${NAME}` substitution syntax (`:-` and a default when given). */
const envRef = (name: string, fallback?: string) =>
  fallback === undefined ? `\${${name}}` : `\${${name}:-${fallback}}`;

const demo = { providers: [{ id: 'demo', api: 'demo' }], models: { primary: 'demo/keel-demo' } };

async function load(server: Record<string, unknown>, env: Record<string, string> = {}) {
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, JSON.stringify({ ...demo, server }));
  return loadConfig({ path, env });
}

async function problems(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(ConfigError.isInstance(error)).toBe(true);
  return (error as ConfigError).problems;
}

describe('server settings', () => {
  it('request and header timeouts default to 30 s and 10 s', async () => {
    const { config } = await load({});
    expect(config.server.requestTimeoutMs).toBe(30_000);
    expect(config.server.headersTimeoutMs).toBe(10_000);
  });

  it('an authToken that substitutes to nothing is a problem naming it', async () => {
    expect(await problems(load({ authToken: envRef('T') }, { T: '' }))).toEqual([
      {
        path: 'server.authToken',
        message: expect.stringContaining(`is empty after substituting ${envRef('T')}`),
      },
    ]);
    expect(await problems(load({ authToken: '' }))).toEqual([
      { path: 'server.authToken', message: expect.stringContaining('is empty') },
    ]);
  });

  it('an explicitly empty default means no token; a set one is kept', async () => {
    expect((await load({ authToken: envRef('T', '') })).config.server.authToken).toBeUndefined();
    expect(
      (await load({ authToken: envRef('T', '') }, { T: '' })).config.server.authToken,
    ).toBeUndefined();
    expect((await load({ authToken: envRef('T') }, { T: 'tok' })).config.server.authToken).toBe(
      'tok',
    );
  });

  it('KEEL_TOKEN set but empty is a problem without a file too', async () => {
    const error = await loadConfig({ env: { KEEL_TOKEN: '' } }).catch((thrown: unknown) => thrown);
    expect((error as ConfigError).problems).toEqual([
      { path: 'KEEL_TOKEN', message: expect.stringContaining('set but empty') },
    ]);
    expect((await loadConfig({ env: { KEEL_TOKEN: 'tok' } })).config.server.authToken).toBe('tok');
  });
});

describe('a file that is not JSON', () => {
  async function brokenAt(text: string) {
    const path = join(dir, `broken-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(path, text);
    return (await problems(loadConfig({ path, env: {} })))[0]?.message;
  }

  it('names the line and column where it broke, whichever error V8 met', async () => {
    // V8 gives a position for this one…
    expect(await brokenAt('{\n  "a": 1\n  "b": 2\n}')).toBe('not valid JSON (line 3, column 3)');
    // …and none for these ("Unexpected token", with the text quoted instead).
    expect(await brokenAt('{\n  "server": {\n    "port": }\n}')).toBe(
      'not valid JSON (line 3, column 13)',
    );
    expect(await brokenAt('{ "a": tru }')).toBe('not valid JSON (line 1, column 11)');
    expect(await brokenAt('{ "a": [1, 2,] }')).toBe('not valid JSON (line 1, column 14)');
    expect(await brokenAt('{ "a": "x\\q" }')).toBe('not valid JSON (line 1, column 11)');
    expect(await brokenAt('{ "a": 1 } x')).toBe('not valid JSON (line 1, column 12)');
  });

  it('says when the file ends too early', async () => {
    expect(await brokenAt('{\n  "a": {')).toBe(
      'not valid JSON (line 2, column 9: the file ends too early)',
    );
  });

  it('never quotes the text (it may hold a key)', async () => {
    const message = await brokenAt('{ "apiKey": sk-secret-value }');
    expect(message).not.toContain('sk-secret');
  });
});

describe('model references', () => {
  async function loadModels(models: Record<string, unknown>) {
    const path = join(dir, `models-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(path, JSON.stringify({ ...demo, models }));
    return loadConfig({ path, env: {} });
  }

  it('names a reference without a provider whole, and what it must look like', async () => {
    expect(await problems(loadModels({ primary: 'claude-sonnet-5' }))).toEqual([
      {
        path: 'models.primary',
        message: expect.stringMatching(/^"claude-sonnet-5" is not "providerId\/model"/),
      },
    ]);
  });

  it('names a reference to a provider that is not configured whole, with the ones that are', async () => {
    expect(
      await problems(loadModels({ primary: 'demo/keel-demo', fallbacks: ['elsewhere/m-1'] })),
    ).toEqual([
      {
        path: 'models.fallbacks.0',
        message: '"elsewhere/m-1" names provider "elsewhere", which is not in providers ("demo")',
      },
    ]);
  });
});

describe('the default models', () => {
  /** The Anthropic SDK's own list of deprecated models and their end-of-life dates. */
  function deprecatedAnthropicModels(): Record<string, string> {
    const require = createRequire(import.meta.url);
    const sdk = dirname(require.resolve('@anthropic-ai/sdk'));
    return require(join(sdk, 'internal/data/deprecated-models.js')).DEPRECATED_MODELS;
  }

  it('are current: not on the SDK list of deprecated models, and models the SDKs name', async () => {
    const anthropic = await loadConfig({ env: { ANTHROPIC_API_KEY: 'k' } });
    const claude = anthropic.config.models.primary.replace(/^anthropic\//, '');
    expect(claude).toBe('claude-sonnet-5');
    expect(Object.keys(deprecatedAnthropicModels())).not.toContain(claude);
    const openai = await loadConfig({ env: { OPENAI_API_KEY: 'k' } });
    expect(openai.config.models.primary).toBe('openai/gpt-5.4-mini');
  });

  it('KEEL_MODEL picks another', async () => {
    const chosen = await loadConfig({
      env: { ANTHROPIC_API_KEY: 'k', KEEL_MODEL: 'claude-opus-5' },
    });
    expect(chosen.config.models.primary).toBe('anthropic/claude-opus-5');
  });
});
