import { createMockProvider, type MockBehavior, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { parseSse, readSse, type SseEvent } from './support/sse-events';

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

/**
 * A gateway on its own models (`<name>-a` on an Anthropic provider, `<name>-o` on an OpenAI one
 * as the fallback unless `fallback: false`), each test's scripted answers matched by model.
 */
async function gatewayFor(name: string, options: { fallback?: boolean; maxRetries?: number } = {}) {
  const gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'st-a',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-stream-a' }],
        },
        {
          id: 'st-o',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-stream-o' }],
        },
      ],
      models: {
        primary: `st-a/${name}-a`,
        fallbacks: options.fallback === false ? [] : [`st-o/${name}-o`],
      },
      retry: { maxRetries: options.maxRetries ?? 0 },
    },
  });
  gateways.push(gateway);
  return gateway;
}

function script(model: string, ...behaviors: MockBehavior[]): void {
  mock.enqueue(...behaviors.map((behavior) => ({ behavior, match: { model } })));
}

async function stream(gateway: GatewayProcess, sessionId: string, body: Record<string, unknown>) {
  const response = await gateway.fetch(`/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return parseSse(await response.text());
}

const data = (event: SseEvent) => event.data as Record<string, unknown>;
const names = (events: SseEvent[]) => events.map((event) => event.event);

/** The text a client shows: the deltas after the last discard. */
function shownText(events: SseEvent[]): string {
  const lastDiscard = names(events).lastIndexOf('discard');
  return events
    .slice(lastDiscard + 1)
    .filter((event) => event.event === 'delta')
    .map((event) => String(data(event)['text']))
    .join('');
}

/** Exactly one outcome, and it is the last event: never a clean end without one. */
function outcomeOf(events: SseEvent[]): Record<string, unknown> {
  expect(names(events).filter((name) => name === 'outcome')).toEqual(['outcome']);
  expect(events.at(-1)?.event).toBe('outcome');
  return data(events.at(-1) as SseEvent);
}

async function assistantTexts(gateway: GatewayProcess, sessionId: string): Promise<string[]> {
  const read = (await (await gateway.fetch(`/v1/sessions/${sessionId}/transcript`)).json()) as {
    entries: Array<{
      type: string;
      role?: string;
      content?: Array<{ type: string; text?: string }>;
    }>;
  };
  return read.entries
    .filter((entry) => entry.type === 'message' && entry.role === 'assistant')
    .map((entry) => (entry.content ?? []).map((block) => block.text ?? '').join(''));
}

describe('before the first delta, retries and fallbacks are invisible', () => {
  it('a reset, an overload and a fallback stream as one clean answer', async () => {
    const gateway = await gatewayFor('quiet', { maxRetries: 1 });
    script('quiet-a', { type: 'reset-before-headers' }, { type: 'http-error', status: 529 });
    script('quiet-o', { type: 'ok', text: 'a clean answer from the fallback' });
    const events = await stream(gateway, 'quiet', { text: 'hi' });

    expect(names(events)).not.toContain('discard');
    const outcome = outcomeOf(events);
    expect(outcome).toMatchObject({
      outcome: 'reply',
      text: 'a clean answer from the fallback',
      model: 'st-o/quiet-o',
    });
    expect(shownText(events)).toBe(outcome['text']);
    // Every delta belongs to the attempt that answered.
    const deltas = events.filter((event) => event.event === 'delta');
    expect(new Set(deltas.map((event) => data(event)['attempt']))).toEqual(new Set([3]));
    expect(await assistantTexts(gateway, 'quiet')).toEqual(['a clean answer from the fallback']);
    expect(mock.pending()).toBe(0);
  });
});

describe('after a delta, a cut is announced by a discard before the next attempt streams', () => {
  const cuts: Array<[string, MockBehavior]> = [
    [
      'a socket reset',
      { type: 'reset-after-chunks', chunks: 2, text: 'PARTIAL words that never finish' },
    ],
    ['an in-stream error', { type: 'stream-error', afterChunks: 2, errorType: 'overloaded_error' }],
  ];
  for (const [label, cut] of cuts) {
    it(`${label}, then a fallback`, async () => {
      const name = label.startsWith('a socket') ? 'reset' : 'error';
      const gateway = await gatewayFor(name);
      script(`${name}-a`, cut);
      script(`${name}-o`, { type: 'ok', text: 'the complete second answer', chunkSize: 5 });
      const events = await stream(gateway, name, { text: 'hi', clientMessageId: `${name}-1` });

      const sequence = names(events);
      const firstDelta = sequence.indexOf('delta');
      const discard = sequence.indexOf('discard');
      expect(firstDelta).toBeGreaterThan(-1);
      expect(discard).toBeGreaterThan(firstDelta);
      expect(sequence.filter((n) => n === 'discard')).toHaveLength(1);
      expect(data(events[discard] as SseEvent)).toMatchObject({
        attempt: data(events[firstDelta] as SseEvent)['attempt'],
        reason: expect.any(String),
      });
      // The next attempt starts and streams only after the discard.
      const nextStart = sequence.indexOf('attempt-start', discard);
      expect(nextStart).toBeGreaterThan(discard);
      expect(sequence.slice(firstDelta, discard).every((n) => n === 'delta')).toBe(true);
      expect(sequence.slice(discard, nextStart)).not.toContain('delta');

      const outcome = outcomeOf(events);
      expect(outcome).toMatchObject({
        outcome: 'reply',
        text: 'the complete second answer',
        model: `st-o/${name}-o`,
        clientMessageId: `${name}-1`,
      });
      expect(shownText(events)).toBe(outcome['text']);
      // Only the final complete reply is stored; the partial text nowhere.
      expect(await assistantTexts(gateway, name)).toEqual(['the complete second answer']);
      const transcript = await (await gateway.fetch(`/v1/sessions/${name}/transcript`)).text();
      const partial = events
        .slice(firstDelta, discard)
        .map((event) => String(data(event)['text']))
        .join('');
      expect(transcript).not.toContain(partial);
      // The next request is not a continuation: no assistant prefill of the partial text.
      const fallbackRequest = mock.requests.filter((request) => request.model === `${name}-o`)[0];
      expect(JSON.stringify(fallbackRequest?.messages)).not.toContain(partial);
      expect(mock.pending()).toBe(0);
    });
  }

  it('a retry on the same model after a cut is announced the same way', async () => {
    const gateway = await gatewayFor('again', { maxRetries: 1, fallback: false });
    script(
      'again-a',
      { type: 'reset-after-chunks', chunks: 1, text: 'HALF of it' },
      { type: 'ok', text: 'all of it, this time' },
    );
    const events = await stream(gateway, 'again', { text: 'hi' });
    expect(names(events).filter((n) => n === 'discard')).toHaveLength(1);
    const outcome = outcomeOf(events);
    expect(outcome).toMatchObject({ outcome: 'reply', text: 'all of it, this time' });
    expect(shownText(events)).toBe(outcome['text']);
    expect(await assistantTexts(gateway, 'again')).toEqual(['all of it, this time']);
    expect(mock.pending()).toBe(0);
  });

  it('the JSON answer of the same story holds only the final reply', async () => {
    const gateway = await gatewayFor('json');
    script('json-a', { type: 'reset-after-chunks', chunks: 2, text: 'PARTIAL json text' });
    script('json-o', { type: 'ok', text: 'final json reply' });
    const answer = await sendMessage(gateway, 'json', { text: 'hi' });
    expect(answer.body).toMatchObject({ outcome: 'reply', text: 'final json reply' });
    expect(await assistantTexts(gateway, 'json')).toEqual(['final json reply']);
  });
});

// The only model is cut every time it is tried: once, then once after each of the turn's waits
// (retry.maxWaits, 2), so nothing is left to try.
const TRIES = 3;

describe('a cut with nothing left to try ends with an error outcome, never a clean end', () => {
  const cuts: Array<[string, string, MockBehavior]> = [
    ['a socket reset', 'reset', { type: 'reset-after-chunks', chunks: 2 }],
    [
      'an in-stream error',
      'error',
      { type: 'stream-error', afterChunks: 1, errorType: 'api_error' },
    ],
    [
      'a stream that ends without its last event',
      'truncated',
      { type: 'truncated-stream', chunks: 2, text: 'ends without its last event' },
    ],
  ];
  for (const [label, name, cut] of cuts) {
    it(`after ${label}`, async () => {
      const gateway = await gatewayFor(`last-${name}`, { fallback: false });
      script(`last-${name}-a`, ...Array.from({ length: TRIES }, () => cut));
      const events = await stream(gateway, `last-${name}`, { text: 'hi' });
      expect(names(events)).toContain('delta');
      const outcome = outcomeOf(events);
      expect(outcome).toMatchObject({ outcome: 'error', text: expect.any(String) });
      expect(outcome['text']).not.toBe('');
      expect(await assistantTexts(gateway, `last-${name}`)).toEqual([]);
      expect(mock.pending()).toBe(0);
    });
  }
});

describe('a streaming client that goes away', () => {
  it('does not stop the turn; a retry with its clientMessageId gets the whole answer', async () => {
    const gateway = await gatewayFor('gone', { fallback: false });
    script('gone-a', {
      type: 'ok',
      text: 'a long answer the first client never saw to its end',
      chunkSize: 4,
      chunkDelayMs: 30,
    });
    const controller = new AbortController();
    const response = await gateway.fetch('/v1/sessions/gone/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ text: 'hi', clientMessageId: 'gone-1' }),
      signal: controller.signal,
    });
    const reader = readSse(response, controller);
    await reader.next((event) => event.event === 'delta');
    reader.close();
    await reader.ended;

    const retry = await sendMessage(gateway, 'gone', { text: 'hi', clientMessageId: 'gone-1' });
    expect(retry.body).toMatchObject({
      outcome: 'reply',
      text: 'a long answer the first client never saw to its end',
    });
    expect(mock.requests.filter((request) => request.model === 'gone-a')).toHaveLength(1);
    expect(await assistantTexts(gateway, 'gone')).toEqual([
      'a long answer the first client never saw to its end',
    ]);
  });
});
