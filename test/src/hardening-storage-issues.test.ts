/**
 * Issue 21, item 13, against the built gateway as a child process: a transcript line (file store)
 * or row (PostgreSQL) that cannot be read is skipped with a warning naming the session and the
 * line or row — never dropped silently — and the session goes on.
 */
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { useTestDatabase } from '@keel/postgres-test-server';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';

const database = useTestDatabase();
let mock: MockProvider;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  mock = await createMockProvider();
});
afterEach(async () => {
  for (const gateway of gateways.splice(0)) {
    await gateway.stop();
    await removeDir(gateway.dir);
  }
});
afterAll(async () => {
  await mock?.close();
});

async function gatewayWith(storage: Record<string, unknown>): Promise<GatewayProcess> {
  const gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      storage,
      providers: [
        {
          id: 'mock',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-issues' }],
        },
      ],
      models: { primary: 'mock/issues-model' },
    },
  });
  gateways.push(gateway);
  return gateway;
}

function skipWarnings(gateway: GatewayProcess, sessionId: string) {
  return gateway.logs.filter(
    (line) =>
      line['level'] === 40 &&
      line['msg'] === 'transcript line skipped: it cannot be read' &&
      line['sessionId'] === sessionId,
  );
}

describe('lines and rows that cannot be read are reported', () => {
  it('file store: a corrupted line is warned with the session and its line number; the session goes on', async () => {
    const gateway = await gatewayWith({ kind: 'file' });
    mock.enqueue({ type: 'ok', text: 'first answer' });
    expect((await sendMessage(gateway, 'corrupt-file', { text: 'one' })).body).toMatchObject({
      outcome: 'reply',
    });
    expect(skipWarnings(gateway, 'corrupt-file')).toEqual([]);
    await appendFile(join(gateway.dir, 'sessions', 'corrupt-file.jsonl'), '{"type":"mess\n');

    mock.enqueue({ type: 'ok', text: 'second answer' });
    expect((await sendMessage(gateway, 'corrupt-file', { text: 'two' })).body).toMatchObject({
      outcome: 'reply',
      text: 'second answer',
    });
    const warnings = skipWarnings(gateway, 'corrupt-file');
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatchObject({ reason: 'invalid-json', line: expect.any(Number) });
  });

  it('PostgreSQL: a corrupted row is warned with the session and its row; the session goes on', async () => {
    const gateway = await gatewayWith({ kind: 'postgres', url: database.url });
    mock.enqueue({ type: 'ok', text: 'first answer' });
    expect((await sendMessage(gateway, 'corrupt-row', { text: 'one' })).body).toMatchObject({
      outcome: 'reply',
    });
    await database.query(
      `UPDATE keel.transcript_entries SET entry = '{"type":' WHERE session_id = $1 AND seq = 1`,
      ['corrupt-row'],
    );
    // A gateway that has not read the session yet (this one kept what it read): a restart.
    await gateway.stop();
    const restarted = await gatewayWith({ kind: 'postgres', url: database.url });

    mock.enqueue({ type: 'ok', text: 'second answer' });
    expect((await sendMessage(restarted, 'corrupt-row', { text: 'two' })).body).toMatchObject({
      outcome: 'reply',
      text: 'second answer',
    });
    const warnings = skipWarnings(restarted, 'corrupt-row');
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatchObject({ reason: 'invalid-json', offset: 1, line: 2 });
  });
});
