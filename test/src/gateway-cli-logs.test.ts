import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { runCli } from './support/run-cli';

// What the gateway's log says, read from the built command line's output: per-request lines only
// at debug, the cause of a connection failure, a start-up warning for a provider nothing answers,
// SDK console notices as JSON records, and readable lines when asked.

let mock: MockProvider;
/** The working folder of the runs without a configuration file (their sessions go there). */
let cwd: string;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  mock = await createMockProvider();
  cwd = await mkdtemp(join(tmpdir(), 'keel-cli-logs-'));
});
afterEach(async () => {
  for (const gateway of gateways.splice(0)) {
    await gateway.stop();
    await removeDir(gateway.dir);
  }
});
afterAll(async () => {
  await mock?.close();
  await removeDir(cwd);
});

const demo = (level: string) => ({
  sessionsDir: 'sessions',
  providers: [{ id: 'demo', api: 'demo' }],
  models: { primary: 'demo/keel-demo' },
  logging: { level },
});

/** A loopback port nothing listens on: one a server held a moment ago. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const turnEnded = (line: Record<string, unknown>) => line['msg'] === 'turn ended';
const requestLines = (gateway: GatewayProcess) =>
  gateway.logs.filter(
    (line) => line['msg'] === 'incoming request' || line['msg'] === 'request completed',
  );

describe('per-request lines', () => {
  it('are not written at info: the turn lines are', async () => {
    const gateway = await startGateway({ config: demo('info') });
    gateways.push(gateway);
    expect((await sendMessage(gateway, 'quiet', { text: 'hello' })).status).toBe(200);
    await gateway.waitForLog(turnEnded);
    expect((await gateway.fetch('/healthz')).status).toBe(200);
    expect(gateway.logs.some((line) => line['msg'] === 'turn started')).toBe(true);
    expect(requestLines(gateway)).toEqual([]);
  });

  it('are written at debug, each at the debug level', async () => {
    const gateway = await startGateway({ config: demo('debug') });
    gateways.push(gateway);
    expect((await sendMessage(gateway, 'chatty', { text: 'hello' })).status).toBe(200);
    await gateway.waitForLog(
      (line) =>
        line['msg'] === 'request completed' &&
        (line['res'] as { statusCode?: number } | undefined)?.statusCode === 200,
    );
    const lines = requestLines(gateway);
    expect(lines.map((line) => line['msg'])).toEqual(['incoming request', 'request completed']);
    expect(lines.map((line) => line['level'])).toEqual([20, 20]);
  });
});

describe('a provider nothing answers', () => {
  it('is warned about at start, and each failed attempt names the refused address', async () => {
    const port = await closedPort();
    const gateway = await startGateway({
      config: {
        sessionsDir: 'sessions',
        providers: [
          {
            id: 'gone',
            api: 'anthropic-messages',
            baseUrl: `http://127.0.0.1:${port}`,
            profiles: [{ id: 'main', apiKey: 'sk-keeltest-gone' }],
          },
        ],
        models: { primary: 'gone/claude-sonnet-5' },
        retry: { maxRetries: 0 },
      },
    });
    gateways.push(gateway);
    const warning = await gateway.waitForLog((line) => line['provider'] === 'gone');
    expect(warning).toMatchObject({
      level: 40,
      baseUrl: `http://127.0.0.1:${port}`,
      cause: `ECONNREFUSED 127.0.0.1:${port}`,
    });
    expect(String(warning['msg'])).toContain('"gone" is unreachable');

    const answer = await sendMessage(gateway, 'refused', { text: 'anyone?' });
    expect(answer.body).toMatchObject({ outcome: 'error', errorKind: 'connection' });
    const failed = await gateway.waitForLog((line) => line['msg'] === 'attempt failed');
    expect(failed['detail']).toBe(`Connection error. (cause: ECONNREFUSED 127.0.0.1:${port})`);
  });

  it('a provider that answers is not warned about', async () => {
    const gateway = await startGateway({
      config: {
        sessionsDir: 'sessions',
        providers: [
          {
            id: 'here',
            api: 'openai-chat',
            baseUrl: mock.openaiBaseUrl,
            profiles: [{ id: 'main', apiKey: 'sk-keeltest-here' }],
          },
        ],
        models: { primary: 'here/logs-here' },
      },
    });
    gateways.push(gateway);
    mock.enqueue({ behavior: { type: 'ok', text: 'here' }, match: { model: 'logs-here' } });
    // A message's whole turn takes longer than the start-up check, which runs first.
    expect((await sendMessage(gateway, 'here', { text: 'hi' })).body['outcome']).toBe('reply');
    expect(gateway.logs.filter((line) => line['provider'] === 'here')).toEqual([]);
  });
});

describe("an SDK's own console notice", () => {
  it('is a JSON log record, not a raw line between them', async () => {
    // The Anthropic SDK warns on the console about a model past its end of life.
    const gateway = await startGateway({
      config: {
        sessionsDir: 'sessions',
        providers: [
          {
            id: 'old',
            api: 'anthropic-messages',
            baseUrl: mock.anthropicBaseUrl,
            profiles: [{ id: 'main', apiKey: 'sk-keeltest-old' }],
          },
        ],
        models: { primary: 'old/claude-sonnet-4-5' },
      },
    });
    gateways.push(gateway);
    mock.enqueue({ behavior: { type: 'ok', text: 'old' }, match: { model: 'claude-sonnet-4-5' } });
    expect((await sendMessage(gateway, 'old', { text: 'hi' })).body['outcome']).toBe('reply');
    const notice = await gateway.waitForLog(
      (line) => line['source'] === 'console' && String(line['msg']).includes('deprecated'),
    );
    expect(notice['level']).toBe(40);
    expect(String(notice['msg'])).toContain("The model 'claude-sonnet-4-5' is deprecated");
    await gateway.waitForLog(turnEnded);
    expect(gateway.logs.filter((line) => 'raw' in line)).toEqual([]);
  });
});

describe('--log-format', () => {
  it('pretty writes readable lines; the start-up line names the console URL', async () => {
    const run = await runCli(['--port', '0', '--log-format', 'pretty'], {
      cwd,
    });
    expect(run.code).toBe('listening');
    const listening = run.stdout
      .split('\n')
      .find((line) => line.includes('keel gateway listening'));
    expect(listening).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}keel gateway listening on http:\/\/127\.0\.0\.1:(\d+), console at http:\/\/127\.0\.0\.1:\1\/console \(embedded demo model, offline\)/,
    );
    expect(run.stdout).not.toMatch(/^\{/m);
  });

  it('json (the default off a terminal) writes one JSON record a line', async () => {
    const run = await runCli(['--port', '0', '--log-format', 'json'], { cwd });
    expect(run.code).toBe('listening');
    for (const line of run.stdout.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('anything else is a bad command line', async () => {
    const run = await runCli(['--log-format', 'xml']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--log-format must be json or pretty, not "xml"');
  });
});
