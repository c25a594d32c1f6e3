/**
 * Issue 21, items 3 and 4, against the built gateway as a child process over a real PostgreSQL
 * of this file's own: frozen with SIGSTOP (the server and every backend), a turn ends within
 * `turn.timeoutMs` with a `503` storage error (not a timeout, not the provider's copy, no model
 * asked), `/healthz` says not ready, nothing hangs; after SIGCONT both recover. A database that is
 * not there at all is a storage error too.
 */
import { execFileSync } from 'node:child_process';
import { type PostgresServer, startPostgresServer } from '@keel/postgres-test-server';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { waitUntil } from './support/wait-until';

let server: PostgresServer;
let primary: MockProvider;
let spare: MockProvider;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  [server, primary, spare] = await Promise.all([
    startPostgresServer(),
    createMockProvider(),
    createMockProvider(),
  ]);
});
afterEach(async () => {
  signalServer('SIGCONT');
  for (const gateway of gateways.splice(0)) {
    await gateway.stop();
    await removeDir(gateway.dir);
  }
  primary.reset();
  spare.reset();
});
afterAll(async () => {
  signalServer('SIGCONT');
  await Promise.all([server?.stop(), primary?.close(), spare?.close()]);
});

/** SIGSTOP / SIGCONT to the server and every backend it forked, as a frozen host would be. */
function signalServer(signal: 'SIGSTOP' | 'SIGCONT'): void {
  if (server === undefined) return;
  let children = '';
  try {
    children = execFileSync('pgrep', ['-P', String(server.pid)], { encoding: 'utf8' });
  } catch {
    // No backend running.
  }
  for (const pid of [server.pid, ...children.split('\n').filter(Boolean).map(Number)]) {
    try {
      process.kill(pid, signal);
    } catch {
      // A backend that ended meanwhile.
    }
  }
}

async function gatewayOver(url: string): Promise<GatewayProcess> {
  const gateway = await startGateway({
    config: {
      storage: {
        kind: 'postgres',
        url,
        leaseTtlMs: 3_000,
        timeouts: { connectMs: 1_000, queryMs: 2_000, statementMs: 1_500 },
      },
      turn: { timeoutMs: 45_000 },
      retry: { maxRetries: 1 },
      providers: [
        {
          id: 'primary',
          api: 'anthropic-messages',
          baseUrl: primary.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-primary' }],
        },
        {
          id: 'spare',
          api: 'openai-chat',
          baseUrl: spare.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-spare' }],
        },
      ],
      models: { primary: 'primary/pg-model', fallbacks: ['spare/pg-spare'] },
    },
  });
  gateways.push(gateway);
  return gateway;
}

function expectStorageError(answer: { status: number; body: Record<string, unknown> }): void {
  expect(answer.status).toBe(503);
  expect(answer.body).toMatchObject({ outcome: 'error', errorKind: 'storage' });
  expect(String(answer.body['text'])).toMatch(/could not be stored/);
  expect(String(answer.body['text'])).not.toMatch(/model provider/);
}

describe('a frozen PostgreSQL (SIGSTOP)', () => {
  it('ends the turn with a 503 storage error within turn.timeoutMs, /healthz 503; after SIGCONT both recover', async () => {
    const gateway = await gatewayOver(server.adminUrl);
    primary.enqueue({ type: 'ok', text: 'before the freeze' });
    expect((await sendMessage(gateway, 'frozen', { text: 'one' })).body).toMatchObject({
      outcome: 'reply',
    });

    signalServer('SIGSTOP');
    const refused = await sendMessage(gateway, 'frozen', { text: 'two' });
    expectStorageError(refused);
    // Not the turn's own deadline: the database's timeouts ended it.
    expect(refused.body['errorKind']).not.toBe('timeout');
    expect(primary.requests).toHaveLength(1);
    expect(spare.requests).toHaveLength(0);
    const health = await gateway.fetch('/healthz');
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: 'unready', storage: 'unavailable' });
    expect(gateway.child.exitCode).toBeNull();
    expect(
      gateway.logs.some((line) => line['level'] === 50 && line['msg'] === 'storage failed'),
    ).toBe(true);

    signalServer('SIGCONT');
    await waitUntil('/healthz ready', async () => (await gateway.fetch('/healthz')).status === 200);
    primary.enqueue({ type: 'ok', text: 'after the thaw' });
    await waitUntil('a message answered again', async () => {
      const answer = await sendMessage(gateway, 'frozen', { text: 'three' });
      return answer.body['outcome'] === 'reply';
    });
  });

  it('a freeze while the model answers: a storage error, the model asked once, no fallback model asked', async () => {
    const gateway = await gatewayOver(server.adminUrl);
    primary.enqueue({ type: 'ok', text: 'an answer nobody can store', firstChunkDelayMs: 3_000 });
    const sent = sendMessage(gateway, 'frozen-mid-turn', { text: 'one' });
    await primary.waitForRequests(1);
    signalServer('SIGSTOP');

    expectStorageError(await sent);
    expect(primary.requests).toHaveLength(1);
    expect(spare.requests).toHaveLength(0);
  });
  it('a gateway stopped while the database is frozen exits: its shutdown does not wait on the database forever', async () => {
    const gateway = await gatewayOver(server.adminUrl);
    primary.enqueue({ type: 'ok', text: 'before the freeze' });
    expect((await sendMessage(gateway, 'frozen-stop', { text: 'one' })).status).toBe(200);
    signalServer('SIGSTOP');
    expectStorageError(await sendMessage(gateway, 'frozen-stop', { text: 'two' }));
    expect(await gateway.stop('SIGTERM')).toBe(0);
  });
});

describe('a PostgreSQL that is not there', () => {
  it('answers a 503 storage error and /healthz 503, without asking a model', async () => {
    const url = 'postgresql://postgres@localhost/postgres?host=/nonexistent/keel-socket-dir';
    const gateway = await gatewayOver(url);
    expectStorageError(await sendMessage(gateway, 'down', { text: 'hello' }));
    expect(primary.requests).toHaveLength(0);
    expect((await gateway.fetch('/healthz')).status).toBe(503);
    expect(gateway.child.exitCode).toBeNull();
  });
});
