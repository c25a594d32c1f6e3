// Issue 20: the gateway's in-memory event log is bounded by bytes and age, each bound set in
// keel.config.json (`events.perSessionBytes`, `events.maxBytes`, `events.maxAgeMs`) and each
// shown here to take effect through `GET /v1/sessions/:id/events` of the built gateway.
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { waitUntil } from './support/wait-until';

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

async function gatewayWith(events: Record<string, unknown>) {
  const gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'ev',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-event-log' }],
        },
      ],
      models: { primary: 'ev/event-log' },
      events,
    },
  });
  gateways.push(gateway);
  return gateway;
}

async function recent(gateway: GatewayProcess, sessionId: string) {
  const response = await gateway.fetch(`/v1/sessions/${sessionId}/events`);
  const text = await response.text();
  const events = (JSON.parse(text) as { events: Array<Record<string, unknown>> }).events;
  return { text, events, turns: new Set(events.map((event) => event['turnId'])).size };
}

describe('the event log bounds from keel.config.json', () => {
  it('events.perSessionBytes: a session keeps its latest events within the bound', async () => {
    const gateway = await gatewayWith({ perSessionBytes: 4000 });
    for (const text of ['one', 'two', 'three', 'four']) {
      expect((await sendMessage(gateway, 'bytes-1', { text })).status).toBe(200);
    }
    const { events, turns } = await recent(gateway, 'bytes-1');
    const kept = events.reduce((sum, event) => sum + JSON.stringify(event).length, 0);
    expect(kept).toBeLessThanOrEqual(4000);
    expect(turns).toBeLessThan(4);
    // The newest are the ones kept.
    expect(events.at(-1)?.['type']).toBe('turn-end');
  });

  it('events.maxBytes: past the budget the least recently active session is forgotten', async () => {
    const gateway = await gatewayWith({ maxBytes: 3000 });
    expect((await sendMessage(gateway, 'budget-old', { text: 'first' })).status).toBe(200);
    expect((await recent(gateway, 'budget-old')).events.length).toBeGreaterThan(0);
    for (const id of ['budget-a', 'budget-b', 'budget-c', 'budget-d']) {
      expect((await sendMessage(gateway, id, { text: 'next' })).status).toBe(200);
    }
    expect((await recent(gateway, 'budget-old')).events).toEqual([]);
    expect((await recent(gateway, 'budget-d')).events.length).toBeGreaterThan(0);
  });

  it('events.maxAgeMs: events older than the bound are no longer served', async () => {
    const gateway = await gatewayWith({ maxAgeMs: 1000 });
    expect((await sendMessage(gateway, 'age-1', { text: 'hello' })).status).toBe(200);
    // With the default (an hour) this would wait until the test's own timeout.
    await waitUntil(
      'the events to age out',
      async () => (await recent(gateway, 'age-1')).events.length === 0,
    );
    expect((await recent(gateway, 'age-1')).text).toBe('{"events":[]}');
  });
});
