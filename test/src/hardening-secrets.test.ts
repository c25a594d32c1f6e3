import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';
import { runCli } from './support/run-cli';

/** The configuration's `${NAME}` substitution syntax. */
const envRef = (name: string, fallback?: string) =>
  fallback === undefined ? `\${${name}}` : `\${${name}:-${fallback}}`;

const demo = {
  sessionsDir: 'sessions',
  providers: [{ id: 'demo', api: 'demo' }],
  models: { primary: 'demo/keel-demo' },
};

async function runWithConfig(config: Record<string, unknown>, env: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'keel-hardening-secrets-'));
  try {
    const path = join(dir, 'keel.config.json');
    await writeFile(path, JSON.stringify(config));
    return await runCli(['--config', path, '--port', '0'], { cwd: dir, env });
  } finally {
    await removeDir(dir);
  }
}

describe('an empty secret refuses start-up, naming it', () => {
  it('an authToken whose variable is set but empty (auth would silently be off)', async () => {
    const run = await runWithConfig(
      { ...demo, server: { authToken: envRef('KEEL_TEST_TOKEN') } },
      { KEEL_TEST_TOKEN: '' },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('server.authToken');
    expect(run.stderr).toContain(`is empty after substituting ${envRef('KEEL_TEST_TOKEN')}`);
  });

  it('an authToken written empty', async () => {
    const run = await runWithConfig({ ...demo, server: { authToken: '' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('server.authToken: is empty');
  });

  it('KEEL_TOKEN set but empty, without a configuration file', async () => {
    const run = await runCli(['--port', '0'], { env: { KEEL_TOKEN: '' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('KEEL_TOKEN: is set but empty');
  });

  it('a provider key whose variable is empty', async () => {
    const run = await runWithConfig(
      {
        ...demo,
        providers: [
          ...demo.providers,
          { id: 'a', api: 'anthropic-messages', profiles: [{ id: 'main', apiKey: envRef('K') }] },
        ],
      },
      { K: '' },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('providers.1.profiles.0.apiKey: must not be empty');
  });

  it('but an explicitly empty default (KEEL_TOKEN with `:-`) still means no token, on loopback', async () => {
    const run = await runWithConfig({
      ...demo,
      server: { authToken: envRef('KEEL_TEST_TOKEN', '') },
    });
    expect(run.code).toBe('listening');
  });
});

describe('short secrets are redacted too', () => {
  // Keys under 8 characters, as a configuration may hold them; clients put them in URLs.
  const TOKEN = 'tk42';
  const KEY = 'k3y5';
  let gateway: GatewayProcess;
  beforeAll(async () => {
    gateway = await startGateway({
      config: {
        ...demo,
        server: { authToken: envRef('KEEL_TEST_TOKEN') },
        // Request lines (where a client's URL appears) are logged at debug.
        logging: { level: 'debug' },
        providers: [
          // The demo model's example keys, as in the configuration used without a file.
          { id: 'demo', api: 'demo', profiles: [{ id: 'key-a', apiKey: 'demo' }] },
          { id: 'a', api: 'anthropic-messages', profiles: [{ id: 'main', apiKey: KEY }] },
        ],
      },
      env: { KEEL_TEST_TOKEN: TOKEN },
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    if (gateway !== undefined) await removeDir(gateway.dir);
  });

  it('never writes the token or a key to the log, wherever a client put them', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    await gateway.fetch(`/v1/sessions?token=${TOKEN}`, { headers: auth });
    await gateway.fetch(`/v1/no-route/${KEY}?key=${KEY}&t=${TOKEN}`, { headers: auth });
    await gateway.waitForLog((line) => JSON.stringify(line).includes('/v1/no-route/'));
    const output = gateway.output();
    expect(output).toContain('/v1/no-route/[redacted]?key=[redacted]&t=[redacted]');
    expect(output).not.toMatch(new RegExp(`\\b(${TOKEN}|${KEY})\\b`));
  });

  it('the demo model keeps its name: its example keys (`demo`) are not secrets', async () => {
    const listening = await gateway.waitForLog((line) => line['primary'] !== undefined);
    expect(listening['primary']).toBe('demo/keel-demo');
  });
});
