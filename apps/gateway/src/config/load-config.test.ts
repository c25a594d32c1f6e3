import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
