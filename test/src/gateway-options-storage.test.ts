// `storage.fsync` (issue 23) through the built gateway: with the file store, `true` (the default)
// makes every transcript append durable with an `fsync`; `false` makes none. The gateway runs
// with a preload (`fixtures/count-fsync.cjs`) that prints a line for each `fs.fsync` call and
// lets it run; a turn's "turn ended" line comes after its appends, on the same stream.
import { fileURLToPath } from 'node:url';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';

const COUNT_FSYNC = fileURLToPath(new URL('./fixtures/count-fsync.cjs', import.meta.url));

let mock: MockProvider;
let gateway: GatewayProcess | undefined;

beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(async () => {
  await mock?.close();
});
afterEach(async () => {
  await gateway?.stop();
  if (gateway !== undefined) await removeDir(gateway.dir);
  gateway = undefined;
});

/** Runs one turn on a gateway with `storage`; the fsync calls it printed up to "turn ended". */
async function fsyncsOfOneTurn(storage: Record<string, unknown>): Promise<number> {
  gateway = await startGateway({
    env: { NODE_OPTIONS: `--require ${COUNT_FSYNC}` },
    config: {
      sessionsDir: 'sessions',
      storage,
      providers: [
        {
          id: 'fs-a',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-fsync-a' }],
        },
      ],
      models: { primary: 'fs-a/main' },
    },
  });
  mock.enqueue({ type: 'ok', text: 'stored' });
  const answer = await sendMessage(gateway, 'durable', { text: 'keep this' });
  expect(answer.body).toMatchObject({ outcome: 'reply', text: 'stored' });
  const ended = await gateway.waitForLog((line) => line['msg'] === 'turn ended');
  const before = gateway.logs.slice(0, gateway.logs.indexOf(ended));
  return before.filter((line) => line['msg'] === 'fsync called').length;
}

describe('storage.fsync', () => {
  it('false: a turn stores its transcript without a single fsync', {
    timeout: 120_000,
  }, async () => {
    expect(await fsyncsOfOneTurn({ kind: 'file', fsync: false })).toBe(0);
  });

  it('true (the default): the same turn fsyncs its appends (and the counter sees them)', {
    timeout: 120_000,
  }, async () => {
    expect(await fsyncsOfOneTurn({ kind: 'file', fsync: true })).toBeGreaterThan(0);
  });
});
