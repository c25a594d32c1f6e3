/**
 * The Anthropic-compatible endpoint's two stream modes against the mock provider's cut, stalled
 * and malformed streams, through the built gateway. Live: the text the client saw is followed by an
 * `event: error`, never by `message_stop`, and nothing more is tried. Buffered (the header or
 * `compat.streamMode`): the failure is invisible and the client gets the fallback's one answer.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createMockProvider, type MockBehavior, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';
import { parseSse } from './support/sse-events';

let mock: MockProvider;
const gateways: GatewayProcess[] = [];
let live: GatewayProcess;
let bufferedByConfig: GatewayProcess;

const FAULTS: Record<string, MockBehavior> = {
  cut: { type: 'reset-after-chunks', chunks: 2, text: 'partial words that never end' },
  stall: { type: 'stall', afterChunks: 2 },
  malformed: { type: 'ok', text: 'abcdefghijklmnop', chunkSize: 4, malformedAfterChunks: 2 },
};

function config(streamMode?: 'buffered') {
  const routes: Record<string, { primary: string; fallbacks: string[] }> = {};
  for (const fault of Object.keys(FAULTS)) {
    for (const mode of ['live', 'buffered', 'config']) {
      routes[`${fault}-${mode}`] = {
        primary: `cs/${fault}-${mode}-p`,
        fallbacks: [`cs/${fault}-${mode}-b`],
      };
    }
  }
  return {
    sessionsDir: 'sessions',
    providers: [
      {
        id: 'cs',
        api: 'anthropic-messages',
        baseUrl: mock.anthropicBaseUrl,
        profiles: [{ id: 'main', apiKey: 'sk-cs' }],
      },
    ],
    models: { primary: 'cs/streams-default' },
    routes,
    retry: { maxRetries: 0 },
    turn: { stallTimeoutMs: 1_500, firstTokenTimeoutMs: 10_000 },
    ...(streamMode === undefined ? {} : { compat: { streamMode } }),
  };
}

beforeAll(async () => {
  mock = await createMockProvider();
  live = await startGateway({ config: config() });
  bufferedByConfig = await startGateway({ config: config('buffered') });
  gateways.push(live, bufferedByConfig);
});
afterAll(async () => {
  for (const gateway of gateways) {
    await gateway.stop();
    await removeDir(gateway.dir);
  }
  await mock?.close();
});

const sentTo = (model: string) => mock.requests.filter((request) => request.model === model);

async function streamRaw(gateway: GatewayProcess, model: string, headers: Record<string, string>) {
  const response = await gateway.fetch('/v1/messages', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      model,
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    }),
  });
  expect(response.status).toBe(200);
  return parseSse(await response.text());
}

describe.each(Object.keys(FAULTS))('a %s stream', (fault) => {
  const behavior = FAULTS[fault] as MockBehavior;

  it('live: the text so far, then event: error and no message_stop; the fallback is never asked', async () => {
    const route = `${fault}-live`;
    mock.enqueue({ behavior, match: { model: `${route}-p` } });
    mock.enqueue({ behavior: { type: 'ok', text: 'never sent' }, match: { model: `${route}-b` } });
    const events = await streamRaw(live, route, {});
    const names = events.map((event) => event.event);
    expect(names[0]).toBe('message_start');
    expect(names).toContain('content_block_delta');
    expect(names.at(-1)).toBe('error');
    expect(names).not.toContain('message_stop');
    expect(events.at(-1)?.data).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(sentTo(`${route}-b`)).toHaveLength(0);

    // The SDK's stream fails rather than presenting a truncated answer as complete.
    mock.enqueue({ behavior, match: { model: `${route}-p` } });
    const client = new Anthropic({ apiKey: 'none', baseURL: live.url, maxRetries: 0 });
    const outcome = await client.messages
      .stream({ model: route, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage()
      .then(
        () => 'complete',
        () => 'failed',
      );
    expect(outcome).toBe('failed');
    expect(sentTo(`${route}-b`)).toHaveLength(0);
  });

  for (const how of ['header', 'config'] as const) {
    it(`buffered (${how}): the fallback's complete answer, once, and nothing of the failed attempt`, async () => {
      const route = `${fault}-${how === 'header' ? 'buffered' : 'config'}`;
      const gateway = how === 'header' ? live : bufferedByConfig;
      const headers: Record<string, string> =
        how === 'header' ? { 'x-keel-stream-mode': 'buffered' } : {};
      mock.enqueue({ behavior, match: { model: `${route}-p` } });
      mock.enqueue({
        behavior: { type: 'ok', text: 'The whole answer.' },
        match: { model: `${route}-b` },
      });
      const events = await streamRaw(gateway, route, headers);
      const names = events.map((event) => event.event);
      expect(names.filter((name) => name === 'message_start')).toHaveLength(1);
      expect(names.at(-1)).toBe('message_stop');
      expect(names).not.toContain('error');
      const text = events
        .filter((event) => event.event === 'content_block_delta')
        .map((event) => (event.data as { delta: { text?: string } }).delta.text ?? '')
        .join('');
      expect(text).toBe('The whole answer.');
      const start = events[0]?.data as { message: { model: string } };
      expect(start.message.model).toBe(`cs/${route}-b`);
      expect(sentTo(`${route}-p`)).toHaveLength(1);
      expect(sentTo(`${route}-b`)).toHaveLength(1);
    });
  }
});
