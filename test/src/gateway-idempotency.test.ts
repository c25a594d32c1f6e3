import { createMockProvider, type MockProvider, mockFaults } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { parseSse } from './support/sse-events';

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

/** A gateway whose one provider serves only `model` (so scripted answers are this test's own). */
async function gatewayFor(model: string, extra: Record<string, unknown> = {}) {
  const gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'idem',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'only', apiKey: 'sk-keeltest-idem' }],
        },
      ],
      models: { primary: `idem/${model}` },
      ...extra,
    },
  });
  gateways.push(gateway);
  return gateway;
}

const requestsFor = (model: string) => mock.requests.filter((request) => request.model === model);

async function transcriptMessages(gateway: GatewayProcess, sessionId: string) {
  const read = (await (await gateway.fetch(`/v1/sessions/${sessionId}/transcript`)).json()) as {
    entries: Array<{ type: string; role?: string }>;
  };
  return read.entries.filter((entry) => entry.type === 'message').map((entry) => entry.role);
}

describe('clientMessageId over HTTP', () => {
  it('a repeat returns the stored outcome without a second turn', async () => {
    const gateway = await gatewayFor('idem-repeat');
    mock.enqueue({
      behavior: { type: 'ok', text: 'answered once' },
      match: { model: 'idem-repeat' },
    });
    const first = await sendMessage(gateway, 'repeat', { text: 'hi', clientMessageId: 'm-1' });
    expect(first.body).toMatchObject({
      outcome: 'reply',
      text: 'answered once',
      clientMessageId: 'm-1',
    });

    const again = await sendMessage(gateway, 'repeat', { text: 'hi', clientMessageId: 'm-1' });
    expect(again).toMatchObject({ status: 200, body: first.body });
    // Even with other text: the id names the message.
    const changed = await sendMessage(gateway, 'repeat', { text: 'other', clientMessageId: 'm-1' });
    expect(changed.body).toEqual(first.body);
    // And over the event stream: at once, the same outcome.
    const streamed = await gateway.fetch('/v1/sessions/repeat/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ text: 'hi', clientMessageId: 'm-1' }),
    });
    const events = parseSse(await streamed.text());
    expect(events.filter((event) => event.event === 'outcome').map((event) => event.data)).toEqual([
      first.body,
    ]);
    expect(events.filter((event) => event.event === 'delta')).toEqual([]);

    expect(requestsFor('idem-repeat')).toHaveLength(1);
    expect(await transcriptMessages(gateway, 'repeat')).toEqual(['user', 'assistant']);
    // Ids are per session: the same id elsewhere is a new message.
    mock.enqueue({
      behavior: { type: 'ok', text: 'other session' },
      match: { model: 'idem-repeat' },
    });
    const elsewhere = await sendMessage(gateway, 'repeat-2', {
      text: 'hi',
      clientMessageId: 'm-1',
    });
    expect(elsewhere.body).toMatchObject({ text: 'other session' });
    expect(requestsFor('idem-repeat')).toHaveLength(2);
  });

  it('two concurrent sends with the same id make one turn and get one answer', async () => {
    const gateway = await gatewayFor('idem-concurrent');
    mock.enqueue({
      behavior: { type: 'ok', text: 'one slow answer for both', chunkSize: 4, chunkDelayMs: 50 },
      match: { model: 'idem-concurrent' },
    });
    const body = { text: 'same message', clientMessageId: 'c-1' };
    const first = sendMessage(gateway, 'concurrent', body);
    await mock.waitForRequests(mock.requests.length + 1);
    const [a, b, c] = await Promise.all([
      first,
      sendMessage(gateway, 'concurrent', body),
      gateway
        .fetch('/v1/sessions/concurrent/messages', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify(body),
        })
        .then(async (response) => parseSse(await response.text())),
    ]);
    expect(a.body).toMatchObject({ outcome: 'reply', text: 'one slow answer for both' });
    expect(b.body).toEqual(a.body);
    expect(c.filter((event) => event.event === 'outcome').map((event) => event.data)).toEqual([
      a.body,
    ]);
    expect(requestsFor('idem-concurrent')).toHaveLength(1);
    expect(await transcriptMessages(gateway, 'concurrent')).toEqual(['user', 'assistant']);
  });

  it('two sends racing from the very start still make one turn', async () => {
    const gateway = await gatewayFor('idem-race');
    mock.enqueue({
      behavior: { type: 'ok', text: 'raced', chunkSize: 2, chunkDelayMs: 20 },
      match: { model: 'idem-race' },
    });
    const body = { text: 'racing', clientMessageId: 'r-1' };
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => sendMessage(gateway, 'race', body)),
    );
    for (const answer of answers) expect(answer.body).toEqual(answers[0]?.body);
    expect(answers[0]?.body).toMatchObject({ outcome: 'reply', text: 'raced' });
    expect(requestsFor('idem-race')).toHaveLength(1);
    expect(await transcriptMessages(gateway, 'race')).toEqual(['user', 'assistant']);
  });
});

describe('Retry-After when every candidate is cooling', () => {
  it('carries the shortest wait as a header and as retryAfterMs', async () => {
    const gateway = await gatewayFor('idem-cooling');
    mock.enqueue({
      behavior: mockFaults.rateLimited({ retryAfterSeconds: 120 }),
      match: { model: 'idem-cooling' },
    });
    const limited = await sendMessage(gateway, 'cooling', { text: 'hi' });
    expect(limited.status).toBe(200);
    expect(limited.body).toMatchObject({ outcome: 'error', errorKind: 'rate_limit' });
    const waitMs = Number(limited.body['retryAfterMs']);
    expect(waitMs).toBeGreaterThan(60_000);
    expect(waitMs).toBeLessThanOrEqual(120_000);
    expect(limited.headers.get('retry-after')).toBe(String(Math.ceil(waitMs / 1000)));

    // The next message is not sent at all while the profile cools: same answer, a shorter wait.
    const skipped = await sendMessage(gateway, 'cooling-2', { text: 'again' });
    expect(skipped.body).toMatchObject({ outcome: 'error' });
    const nextWait = Number(skipped.body['retryAfterMs']);
    expect(nextWait).toBeGreaterThan(0);
    expect(nextWait).toBeLessThanOrEqual(waitMs);
    expect(Number(skipped.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(skipped.headers.get('retry-after'))).toBe(Math.ceil(nextWait / 1000));

    // The event stream's outcome carries the wait too (its headers left before the outcome).
    const streamed = await gateway.fetch('/v1/sessions/cooling-3/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ text: 'and again' }),
    });
    const outcome = parseSse(await streamed.text()).find((event) => event.event === 'outcome');
    expect(outcome?.data).toMatchObject({ outcome: 'error', retryAfterMs: expect.any(Number) });

    expect(requestsFor('idem-cooling')).toHaveLength(1);
    expect(mock.pending()).toBe(0);
  });

  it('no Retry-After on an answer or on an error with no wait', async () => {
    const gateway = await gatewayFor('idem-no-wait');
    mock.enqueue(
      { behavior: { type: 'ok', text: 'fine' }, match: { model: 'idem-no-wait' } },
      {
        behavior: { type: 'http-error', status: 400, errorType: 'invalid_request_error' },
        match: { model: 'idem-no-wait' },
      },
    );
    const fine = await sendMessage(gateway, 'no-wait', { text: 'hi' });
    expect(fine.body).toMatchObject({ outcome: 'reply' });
    expect(fine.headers.get('retry-after')).toBeNull();
    const failed = await sendMessage(gateway, 'no-wait', { text: 'hi' });
    expect(failed.body).toMatchObject({ outcome: 'error', errorKind: 'invalid_request' });
    expect(failed.body['retryAfterMs']).toBeUndefined();
    expect(failed.headers.get('retry-after')).toBeNull();
  });
});
