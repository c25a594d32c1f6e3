import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { createKeepAliveClient } from './support/keep-alive-client';
import { parseSse, readSse } from './support/sse-events';

/** Answers the fallback model; shared, scripted per test by model. */
let mock: MockProvider;
const dirs: string[] = [];

beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(async () => {
  await mock?.close();
  for (const dir of dirs) await removeDir(dir);
});

/**
 * A gateway whose primary model is served by `held` (a mock of the test's own, whose stalled
 * answer ends only when the test closes it) with a fallback on the shared mock.
 */
async function gatewayWith(
  held: MockProvider,
  name: string,
  graceMs: number,
  dir?: string,
): Promise<GatewayProcess> {
  const gateway = await startGateway({
    ...(dir === undefined ? {} : { dir }),
    config: {
      sessionsDir: 'sessions',
      shutdown: { graceMs },
      retry: { maxRetries: 0 },
      providers: [
        {
          id: 'held',
          api: 'anthropic-messages',
          baseUrl: held.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-held' }],
        },
        {
          id: 'spare',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-spare' }],
        },
      ],
      models: { primary: `held/${name}-held`, fallbacks: [`spare/${name}-spare`] },
    },
  });
  if (!dirs.includes(gateway.dir)) dirs.push(gateway.dir);
  return gateway;
}

async function leftoverLocks(gateway: GatewayProcess): Promise<string[]> {
  return (await readdir(join(gateway.dir, 'sessions'))).filter((name) => name.endsWith('.lock'));
}

/** A message sent while the gateway stops: refused with the contract's 503, or not connected. */
async function refusedWhileStopping(gateway: GatewayProcess): Promise<void> {
  try {
    const response = await gateway.fetch('/v1/sessions/late/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'too late' }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).not.toBeNull();
    expect(await response.json()).toEqual({
      error: { code: 'unavailable', message: expect.stringMatching(/restarting/) },
    });
  } catch (error) {
    expect((error as { cause?: { code?: string } }).cause?.code).toMatch(/ECONNREFUSED|ECONNRESET/);
  }
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  describe(`graceful shutdown on ${signal}`, () => {
    it('lets a running turn finish within the grace period, then exits 0', async () => {
      const name = `fin-${signal.toLowerCase()}`;
      const held = await createMockProvider();
      const gateway = await gatewayWith(held, name, 60_000);
      // An idle keep-alive connection and a follower of every event must not hold the exit.
      expect((await gateway.fetch('/healthz')).status).toBe(200);
      const controller = new AbortController();
      const follower = readSse(
        await gateway.fetch('/v1/events?follow=1', { signal: controller.signal }),
        controller,
      );
      held.enqueue({ type: 'stall', afterChunks: 1 });
      mock.enqueue({
        behavior: { type: 'ok', text: 'finished during the grace period' },
        match: { model: `${name}-spare` },
      });
      // Sent by a client that keeps its connection open after the answer, as long as it may.
      const client = createKeepAliveClient(gateway.url);
      const answer = client.send({
        method: 'POST',
        path: `/v1/sessions/${name}/messages`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'hi', clientMessageId: `${name}-1` }),
      });
      await held.waitForRequests(1);

      const exited = gateway.stop(signal);
      await gateway.waitForLog((line) => line['msg'] === 'stopping: finishing running turns');
      expect((await gateway.fetch('/healthz').catch(() => undefined))?.status ?? 503).toBe(503);
      await refusedWhileStopping(gateway);

      await held.close(); // the stalled answer breaks off; the turn falls back and finishes
      expect(JSON.parse((await answer).text)).toMatchObject({
        outcome: 'reply',
        text: 'finished during the grace period',
        clientMessageId: `${name}-1`,
      });
      expect(await exited).toBe(0);
      expect(client.openSockets()).toBe(0);
      client.close();
      await follower.ended;
      expect(await leftoverLocks(gateway)).toEqual([]);
      const stored = await readFile(join(gateway.dir, 'sessions', `${name}.jsonl`), 'utf8');
      expect(stored).toContain('finished during the grace period');
      expect(gateway.logs.at(-1)).toMatchObject({ msg: 'stopped' });
      expect(mock.pending()).toBe(0);
    });

    it('past the grace period ends the turn with the restart notice; a retry after restart gets it', async () => {
      const name = `past-${signal.toLowerCase()}`;
      const held = await createMockProvider();
      const gateway = await gatewayWith(held, name, 300);
      held.enqueue({ type: 'stall', afterChunks: 1 }, { type: 'stall', afterChunks: 1 });
      const answer = sendMessage(gateway, name, { text: 'hi', clientMessageId: `${name}-1` });
      const client = createKeepAliveClient(gateway.url);
      const streamed = client
        .send({
          method: 'POST',
          path: `/v1/sessions/${name}-sse/messages`,
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ text: 'hi', clientMessageId: `${name}-2` }),
        })
        .then((response) => parseSse(response.text));
      await held.waitForRequests(2);

      const exitCode = await gateway.stop(signal);
      const json = (await answer).body;
      expect(json).toMatchObject({
        outcome: 'error',
        clientMessageId: `${name}-1`,
        text: expect.stringMatching(/restart/i),
      });
      const events = await streamed;
      expect(events.at(-1)).toMatchObject({
        event: 'outcome',
        data: { outcome: 'error', text: json['text'] },
      });
      expect(exitCode).toBe(0);
      client.close();
      expect(await leftoverLocks(gateway)).toEqual([]);
      await held.close();

      // Restarted on the same folder: the retry gets the stored outcome, no new turn.
      const spare = await createMockProvider();
      const restarted = await gatewayWith(spare, name, 300, gateway.dir);
      try {
        const retry = await sendMessage(restarted, name, {
          text: 'hi',
          clientMessageId: `${name}-1`,
        });
        expect(retry.body).toEqual(json);
        expect(spare.requests).toEqual([]);
        expect(mock.requests.filter((r) => r.model === `${name}-spare`)).toEqual([]);
      } finally {
        expect(await restarted.stop()).toBe(0);
        await spare.close();
      }
      expect(await leftoverLocks(restarted)).toEqual([]);
    });
  });
}
