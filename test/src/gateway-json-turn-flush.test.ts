/**
 * The native route's JSON answer in a session no client follows: the message is made durable with
 * the reply, one transcript fsync a turn. Streamed, or with a client following the session (or
 * every session, as the console does), the message is flushed on its own first: two a turn. The
 * real gateway process; its transcript fsyncs are counted by a preload
 * (`fixtures/hold-fsync.cjs`, `KEEL_FSYNC_MODE=count`) that prints a line for each. A turn's fsyncs
 * all come before its answer; after each answer the count is awaited, and once the gateway has
 * exited (every line out) the total must be the sum — no turn made more than its share.
 */
import { fileURLToPath } from 'node:url';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, sendMessage, startGateway } from './support/gateway-process';
import { readSse } from './support/sse-events';
import { waitUntil } from './support/wait-until';

const HOLD_FSYNC = fileURLToPath(new URL('./fixtures/hold-fsync.cjs', import.meta.url));
const TIMEOUT = 120_000;

let mock: MockProvider;
beforeAll(async () => {
  mock = await createMockProvider({ defaultReply: () => 'Answered.' });
});
afterAll(async () => {
  await mock?.close();
});

interface Step {
  answer: 'json' | 'streamed';
  /** The transcript fsyncs the turn makes. */
  fsyncs: number;
}

/**
 * Runs `steps` in one session of a new gateway, a client following `following` (a path) from
 * the second step on, and checks that each step made exactly its fsyncs: its count is awaited
 * after its answer (they all come before it, through a pipe read apart from the answer), and once
 * the gateway has exited, every line out, the total must be the sum — no turn made more.
 */
async function expectFsyncs(steps: Step[], following?: string): Promise<void> {
  const gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'flush',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-flush' }],
        },
      ],
      models: { primary: 'flush/flush-model' },
    },
    env: { NODE_OPTIONS: `--require ${HOLD_FSYNC}`, KEEL_FSYNC_MODE: 'count' },
  });
  const counted = (): number => gateway.logs.filter((line) => line['raw'] === 'FSYNC').length;
  const controller = new AbortController();
  try {
    let expected = 0;
    for (const [index, step] of steps.entries()) {
      if (index === 1 && following !== undefined) {
        const response = await gateway.fetch(following, { signal: controller.signal });
        expect(response.status).toBe(200);
        readSse(response, controller);
      }
      if (step.answer === 'json') {
        const answer = await sendMessage(gateway, 'flushes', { text: `message ${index}` });
        expect(answer.body).toMatchObject({ outcome: 'reply', text: 'Answered.' });
      } else {
        const response = await gateway.fetch('/v1/sessions/flushes/messages', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ text: `message ${index}` }),
        });
        expect(await response.text()).toContain('"outcome":"reply"');
      }
      expected += step.fsyncs;
      await waitUntil(`turn ${index}'s ${step.fsyncs} fsyncs`, () => counted() >= expected);
    }
    controller.abort();
    await gateway.stop();
    expect(counted()).toBe(expected);
  } finally {
    controller.abort();
    await gateway.stop();
    await removeDir(gateway.dir);
  }
}

// A session's first turn creates its file, flushed whatever was asked: two fsyncs either way.
const first: Step = { answer: 'json', fsyncs: 2 };

describe('the fsyncs of a turn through the native route', () => {
  it(
    'answered as JSON in a session nobody follows: one, the message made durable with the reply',
    () =>
      expectFsyncs([
        first,
        { answer: 'json', fsyncs: 1 },
        { answer: 'json', fsyncs: 1 },
        { answer: 'json', fsyncs: 1 },
      ]),
    TIMEOUT,
  );

  it(
    'streamed: two, the message flushed on its own so that its events go out during the call',
    () =>
      expectFsyncs([
        first,
        { answer: 'streamed', fsyncs: 2 },
        { answer: 'json', fsyncs: 1 },
        { answer: 'streamed', fsyncs: 2 },
      ]),
    TIMEOUT,
  );

  it(
    'with a client following the session: two',
    () =>
      expectFsyncs(
        [first, { answer: 'json', fsyncs: 2 }, { answer: 'json', fsyncs: 2 }],
        '/v1/sessions/flushes/events?follow=1',
      ),
    TIMEOUT,
  );

  it(
    'with a client following every session (the console): two',
    () => expectFsyncs([first, { answer: 'json', fsyncs: 2 }], '/v1/events?follow=1'),
    TIMEOUT,
  );
});
