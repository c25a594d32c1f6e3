// Issue 21 item 9: `GET /v1/sessions` costs the same whatever a transcript's length — each
// summary comes from the transcript's tail, never the whole file — and a path in the sessions
// folder that is not a regular file (a FIFO, a directory) is skipped, not a 500 for everyone and
// not a request that waits forever on a FIFO.
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';

const run = promisify(execFile);
let mock: MockProvider;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(async () => {
  for (const gateway of gateways) {
    await gateway.stop();
    await removeDir(gateway.dir);
  }
  await mock?.close();
});

async function gatewayFor(model: string) {
  const gateway = await startGateway({
    config: {
      server: { bodyLimitBytes: 4_194_304 },
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'hl',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-list' }],
        },
      ],
      models: { primary: `hl/${model}` },
    },
  });
  gateways.push(gateway);
  return gateway;
}

interface Summary {
  sessionId: string;
  entryCount: number;
  selectedModel: string;
  lastActivity: string | null;
  lastOutcome: Record<string, unknown> | null;
  running: boolean;
}

async function list(gateway: GatewayProcess): Promise<{ status: number; sessions: Summary[] }> {
  const response = await gateway.fetch('/v1/sessions');
  const body = (await response.json()) as { sessions?: Summary[] };
  return { status: response.status, sessions: body.sessions ?? [] };
}

describe('GET /v1/sessions', () => {
  it('skips a FIFO and a directory named like a transcript, listing the others', async () => {
    const gateway = await gatewayFor('list-fifo');
    expect((await sendMessage(gateway, 'plain-1', { text: 'hello' })).status).toBe(200);
    const sessions = join(gateway.dir, 'sessions');
    await run('mkfifo', [join(sessions, 'fifo-1.jsonl')]);
    await mkdir(join(sessions, 'folder-1.jsonl'));

    const answer = await list(gateway);
    expect(answer.status).toBe(200);
    expect(answer.sessions.map((session) => session.sessionId)).toEqual(['plain-1']);
    // Said in the log, with the session, at warning level.
    const warning = await gateway.waitForLog(
      (line) => line['sessionId'] === 'fifo-1' && line['level'] === 40,
    );
    expect(String(warning['msg'])).toMatch(/not a regular file/);
    // The FIFO was never opened for a blocking read: the next list answers too.
    expect((await list(gateway)).status).toBe(200);
  });

  it("summarizes a long transcript from its tail: the list counts only the tail's entries, the rest agrees with the whole", async () => {
    const gateway = await gatewayFor('list-tail');
    // A first message far larger than the list's tail, then a few short turns.
    expect((await sendMessage(gateway, 'long-1', { text: 'z'.repeat(1_000_000) })).status).toBe(
      200,
    );
    for (const text of ['one', 'two', 'three']) {
      expect((await sendMessage(gateway, 'long-1', { text })).body['outcome']).toBe('reply');
    }
    expect((await sendMessage(gateway, 'short-1', { text: 'hi' })).status).toBe(200);

    const whole = (await (await gateway.fetch('/v1/sessions/long-1')).json()) as Summary;
    const { status, sessions } = await list(gateway);
    expect(status).toBe(200);
    const listed = sessions.find((session) => session.sessionId === 'long-1');
    // The first turn (its message, start, reply, end) is beyond the tail: not read.
    expect(listed?.entryCount).toBeLessThan(whole.entryCount);
    expect(listed?.entryCount).toBeGreaterThanOrEqual(4);
    expect({ ...listed, entryCount: 0 }).toEqual({ ...whole, entryCount: 0 });
    // A short transcript fits its tail whole: the same summary either way.
    const short = (await (await gateway.fetch('/v1/sessions/short-1')).json()) as Summary;
    expect(sessions.find((session) => session.sessionId === 'short-1')).toEqual(short);
  });
});
