import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { runCli } from './support/run-cli';

/** The configuration's `${NAME}` substitution syntax. */
const envRef = (name: string, fallback?: string) =>
  fallback === undefined ? `\${${name}}` : `\${${name}:-${fallback}}`;

let dir: string;
let mock: MockProvider;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keel-cli-'));
  mock = await createMockProvider();
});
afterAll(async () => {
  for (const gateway of gateways) {
    await gateway.stop();
    await removeDir(gateway.dir);
  }
  await mock?.close();
  await removeDir(dir);
});

async function configFile(name: string, config: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  return path;
}

const validConfig = (model: string) => ({
  sessionsDir: 'sessions',
  providers: [
    {
      id: 'cli',
      api: 'anthropic-messages',
      baseUrl: mock.anthropicBaseUrl,
      profiles: [{ id: 'main', apiKey: 'sk-keeltest-cli' }],
    },
  ],
  models: { primary: `cli/${model}` },
});

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('an invalid configuration', () => {
  it('exits 1 naming every bad path and why, all at once', async () => {
    const path = await configFile('many-problems.json', {
      server: { port: 70_000, host: '' },
      providers: [
        { id: 'bad id!', api: 'anthropic-messages', profiles: [] },
        { id: 'x', api: 'nope' },
      ],
      models: { primary: 'no-slash' },
      retry: { maxRetries: -1 },
      queue: { mode: 'sideways' },
      extra: true,
    });
    const run = await runCli(['--config', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(path);
    const lines = run.stderr.split('\n');
    const problem = (at: string, why: RegExp) =>
      expect(lines.some((line) => line.includes(`- ${at}: `) && why.test(line))).toBe(true);
    problem('server.port', /65535/);
    problem('server.host', /1 character/);
    problem('providers.0.id', /letters, digits/);
    problem('providers.0.profiles', /at least one profile/);
    problem('providers.1.api', /anthropic-messages/);
    problem('models.primary', /providerId\/model/);
    problem('retry.maxRetries', />=0/);
    problem('queue.mode', /followup/);
    problem('(root)', /extra/);
  });

  it('names a reference to a provider that is not configured', async () => {
    const config = validConfig('m');
    const path = await configFile('unknown-provider.json', {
      ...config,
      models: { primary: 'cli/m', fallbacks: ['elsewhere/m'] },
    });
    const run = await runCli(['--config', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/- models\.fallbacks\.0: .*"elsewhere"/);
  });

  it('names each missing environment variable and where it is used', async () => {
    const path = await configFile('missing-env.json', {
      ...validConfig('m'),
      server: { authToken: envRef('KEEL_TEST_MISSING_TOKEN') },
      models: { primary: `cli/${envRef('KEEL_TEST_MISSING_MODEL')}` },
    });
    const run = await runCli(['--config', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/- server\.authToken: .*KEEL_TEST_MISSING_TOKEN/);
    expect(run.stderr).toMatch(/- models\.primary: .*KEEL_TEST_MISSING_MODEL/);
  });

  it('says so when the file is missing or not JSON', async () => {
    const missing = await runCli(['--config', join(dir, 'nowhere.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nowhere\.json[\s\S]*cannot read the file/);
    const path = await configFile('broken.json', '{\n  "server": {\n    "port": 1,,\n  }\n}');
    const broken = await runCli(['--config', path]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/not valid JSON \(line 3, column \d+\)/);
  });
});

describe('environment variable substitution', () => {
  it('fills keys, tokens, URLs and model names from the environment', async () => {
    const gateway = await startGateway({
      config: {
        server: { authToken: envRef('KEEL_TEST_TOKEN') },
        sessionsDir: envRef('KEEL_TEST_UNSET_DIR', 'from-default'),
        providers: [
          {
            id: 'sub',
            api: 'anthropic-messages',
            baseUrl: envRef('KEEL_TEST_BASE_URL'),
            profiles: [{ id: 'main', apiKey: envRef('KEEL_TEST_KEY') }],
          },
        ],
        models: { primary: `sub/${envRef('KEEL_TEST_MODEL')}` },
      },
      env: {
        KEEL_TEST_TOKEN: 'token-from-env',
        KEEL_TEST_BASE_URL: mock.anthropicBaseUrl,
        KEEL_TEST_KEY: 'sk-keeltest-from-env',
        KEEL_TEST_MODEL: 'cli-substituted',
      },
    });
    gateways.push(gateway);
    mock.enqueue({
      behavior: { type: 'ok', text: 'substituted' },
      match: { model: 'cli-substituted' },
    });
    const refused = await sendMessage(gateway, 'sub', { text: 'hi' });
    expect(refused.status).toBe(401);
    const answer = await sendMessage(
      gateway,
      'sub',
      { text: 'hi' },
      { authorization: 'Bearer token-from-env' },
    );
    expect(answer.body).toMatchObject({ outcome: 'reply', text: 'substituted' });
    const request = mock.requests.find((r) => r.model === 'cli-substituted');
    expect(request?.apiKey).toBe('sk-keeltest-from-env');
    const listening = gateway.logs.find((line) =>
      String(line['msg']).startsWith('keel gateway listening'),
    );
    expect(String(listening?.['sessionsDir'])).toBe(join(gateway.dir, 'from-default'));
  });
});

describe('the heap bound the gateway sets (issue 20)', () => {
  const heapOf = async (env: Record<string, string>) => {
    const gateway = await startGateway({ config: validConfig('heap'), env });
    gateways.push(gateway);
    const listening = await gateway.waitForLog((line) =>
      String(line['msg']).startsWith('keel gateway listening'),
    );
    return listening['heap'];
  };

  it('bounds the old generation when node got a young generation at launch, else sets --optimize-for-size', async () => {
    // As `pnpm start` launches it, the young generation carried by NODE_OPTIONS here.
    expect(await heapOf({ NODE_OPTIONS: '--max-semi-space-size=4' })).toBe(
      '--heap-growing-percent: 16 MiB or 15 % past what is alive',
    );
    expect(await heapOf({})).toBe('--optimize-for-size');
  });
});

describe('the command line', () => {
  it('--port and --host win over the configuration', async () => {
    const port = await freePort();
    const gateway = await startGateway({
      config: { ...validConfig('cli-flags'), server: { host: '127.0.0.2', port: 1 } },
      args: ['--host', '127.0.0.1', '--port', String(port)],
    });
    gateways.push(gateway);
    expect(gateway.url).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

    const configured = await startGateway({
      config: { ...validConfig('cli-flags'), server: { host: '127.0.0.2' } },
    });
    gateways.push(configured);
    expect(new URL(configured.url).hostname).toBe('127.0.0.2');
  });

  it('reads the configuration named by KEEL_CONFIG', async () => {
    const path = await configFile('from-env.json', {
      ...validConfig('m'),
      models: { primary: 'x' },
    });
    const run = await runCli([], { env: { KEEL_CONFIG: path } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(path);
  });

  it('--help prints the usage and exits 0', async () => {
    for (const flag of ['--help', '-h']) {
      const run = await runCli([flag]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Usage: keel-gateway/);
      expect(run.stdout).toMatch(/--config/);
      expect(run.stdout).toMatch(/--port/);
      expect(run.stdout).toMatch(/--host/);
      expect(run.stderr).toBe('');
    }
  });

  it('a bad command line exits 2 with the reason and the usage', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--nope'], /--nope/],
      [['--port', 'abc'], /--port/],
      [['--port', '70000'], /--port/],
      [['--port', '1.5'], /--port/],
      [['--port', ''], /--port/],
      [['--port', '0x1f90'], /--port/],
      [['--port', '1e3'], /--port/],
      [['--config'], /--config/],
      [['serve'], /serve/],
    ];
    for (const [args, reason] of cases) {
      const run = await runCli(args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(reason);
      expect(run.stderr).toMatch(/Usage: keel-gateway/);
      expect(run.stdout).toBe('');
    }
  });
});
