// What a Chat Completions client receives, judged: the stream reader on real loopback streams (a
// reply with and without `[DONE]`, an in-band error, an error status) and the checks the
// compatible runs add to every scenario.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamChat } from './chat-stream';
import { chatChecks } from './failover-apis';
import type { Observation } from './failover-scenario';
import { requestStory } from './failover-verdict';
import type { StreamedTurn } from './gateway-turn';

/** What the server answers, by the request's `model`. */
const answers: Record<string, { status: number; lines: string[] }> = {
  whole: {
    status: 200,
    lines: [
      '{"model":"p/a","choices":[{"delta":{"role":"assistant","content":""}}]}',
      '{"model":"p/a","choices":[{"delta":{"content":"Hello"}}]}',
      '{"model":"p/a","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}',
      '[DONE]',
    ],
  },
  cut: {
    status: 200,
    lines: [
      '{"model":"p/a","choices":[{"delta":{"content":"Hel"}}]}',
      '{"error":{"message":"void","type":"server_error","code":"stream_interrupted"}}',
    ],
  },
  busy: { status: 503, lines: [] },
};
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const answer = answers[(JSON.parse(body) as { model: string }).model];
      if (answer === undefined || answer.status !== 200) {
        response.writeHead(answer?.status ?? 404, { 'retry-after': '2' });
        response.end('{"error":{"message":"busy","type":"server_error","code":"overloaded"}}');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const line of answer.lines) response.write(`data: ${line}\n\n`);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const ask = (model: string) =>
  streamChat(url, { model, text: 'hi', mode: 'live', signal: AbortSignal.timeout(5_000) });
const observed = (turn: StreamedTurn): Observation => ({
  turn,
  limitMs: 1_000,
  primary: [],
  fallback: [],
  attempts: undefined,
  reply: 'Hello',
});
const failed = (turn: StreamedTurn) =>
  chatChecks(observed(turn))
    .filter((check) => !check.ok)
    .map((check) => check.detail);

describe('streamChat', () => {
  it('reads a whole reply: its text, model, usage and [DONE]', async () => {
    const turn = await ask('whole');
    expect(turn.answer).toEqual({
      outcome: 'reply',
      text: 'Hello',
      model: 'p/a',
      usage: { inputTokens: 3, outputTokens: 1 },
    });
    expect(turn).toMatchObject({ terminal: true, chunkModels: ['p/a'], shown: 'Hello' });
    expect(failed(turn)).toEqual([]);
  });

  it('reads an in-band error without [DONE] as a clean error', async () => {
    const turn = await ask('cut');
    expect(turn.answer).toMatchObject({
      outcome: 'error',
      errorKind: 'in-band stream_interrupted',
    });
    expect(turn.terminal).toBe(false);
    expect(failed(turn)).toEqual([]);
  });

  it('reads an error status with its code and Retry-After', async () => {
    const turn = await ask('busy');
    expect(turn.answer).toMatchObject({
      outcome: 'error',
      errorKind: 'HTTP 503 overloaded',
      retryAfterMs: 2_000,
    });
  });
});

describe('chatChecks', () => {
  const base: StreamedTurn = {
    answer: { outcome: 'reply', text: 'Hello' },
    shown: 'Hello',
    discards: 0,
    ms: 1,
    terminal: true,
    chunkModels: ['p/a'],
  };
  it('fails a reply without [DONE], [DONE] after an error, and chunks naming two models', () => {
    expect(failed({ ...base, terminal: false })).toEqual(['a reply without [DONE]']);
    expect(failed({ ...base, answer: { outcome: 'error', text: '', errorKind: 'x' } })).toEqual([
      '[DONE] after an in-band error',
    ]);
    expect(failed({ ...base, chunkModels: ['p/a', 'q/b'] })).toEqual([
      'the chunks named 2 models (p/a, q/b)',
    ]);
  });
});

describe('requestStory', () => {
  it("tells a stateless call's story from the provider's log, in arrival order", () => {
    const entry = (model: string, receivedAt: number, behavior: string) => ({
      model,
      receivedAt,
      prefill: false,
      promptChars: 1,
      behavior,
    });
    const observation = {
      ...observed(base()),
      primary: [entry('s04-live-primary', 1, 'http-error')],
      fallback: [entry('s04-live-fallback', 2, 'ok')],
    };
    expect(requestStory(observation)).toBe('primary: http-error; fallback: ok');
  });
});

function base(): StreamedTurn {
  return { answer: { outcome: 'reply', text: 'Hello' }, shown: 'Hello', discards: 0, ms: 1 };
}
