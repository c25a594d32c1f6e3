/**
 * The Anthropic-compatible endpoint when the call outlives its client or its gateway: a client
 * that goes away (before an answer, or mid-stream) aborts the call; a call cut short by the
 * gateway's shutdown answers 503 with Retry-After in Anthropic's shape.
 */
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';

let mock: MockProvider;
const gateways: GatewayProcess[] = [];

function config(model: string, graceMs = 10_000) {
  return {
    sessionsDir: 'sessions',
    providers: [
      {
        id: 'cl',
        api: 'anthropic-messages',
        baseUrl: mock.anthropicBaseUrl,
        profiles: [{ id: 'main', apiKey: 'sk-cl' }],
      },
    ],
    models: { primary: `cl/${model}` },
    retry: { maxRetries: 0 },
    shutdown: { graceMs },
  };
}

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

async function start(model: string, graceMs?: number): Promise<GatewayProcess> {
  const gateway = await startGateway({ config: config(model, graceMs) });
  gateways.push(gateway);
  return gateway;
}

function post(gateway: GatewayProcess, body: Record<string, unknown>, signal?: AbortSignal) {
  return gateway.fetch('/v1/messages', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'default',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
      ...body,
    }),
    ...(signal === undefined ? {} : { signal }),
  });
}

const endedAborted = (line: Record<string, unknown>) =>
  line['msg'] === 'turn ended' &&
  String(line['sessionId']).startsWith('anthropic-') &&
  line['outcome'] === 'aborted';

describe('Anthropic-compatible calls and their clients', () => {
  it('a client that goes away before the answer aborts the call', async () => {
    const gateway = await start('life-away');
    mock.enqueue({ behavior: { type: 'hang' }, match: { model: 'life-away' } });
    const before = mock.requests.length;
    const controller = new AbortController();
    const pending = post(gateway, {}, controller.signal).catch((error: Error) => error.name);
    await mock.waitForRequests(before + 1);
    controller.abort();
    expect(await pending).toBe('AbortError');
    expect(await gateway.waitForLog(endedAborted)).toMatchObject({ outcome: 'aborted' });
  });

  it('a live stream whose client goes away after the first text aborts the call', async () => {
    const gateway = await start('life-stream');
    mock.enqueue({
      behavior: { type: 'ok', text: 'word '.repeat(200), chunkSize: 5, chunkDelayMs: 50 },
      match: { model: 'life-stream' },
    });
    const controller = new AbortController();
    const response = await post(gateway, { stream: true }, controller.signal);
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    while (!seen.includes('content_block_delta')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended early');
      seen += new TextDecoder().decode(value);
    }
    controller.abort();
    expect(await gateway.waitForLog(endedAborted)).toMatchObject({ outcome: 'aborted' });
  });

  it('a call cut short by shutdown answers 503 with Retry-After in Anthropic’s shape', async () => {
    const gateway = await start('life-shutdown', 200);
    mock.enqueue({ behavior: { type: 'hang' }, match: { model: 'life-shutdown' } });
    const before = mock.requests.length;
    const pending = post(gateway, {});
    await mock.waitForRequests(before + 1);
    const stopped = gateway.stop();
    const response = await pending;
    expect(response.status).toBe(503);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'api_error', message: expect.any(String) },
    });
    await stopped;
  });
});
