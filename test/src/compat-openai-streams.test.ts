// Mid-stream failures on /v1/chat/completions, both stream modes, against the mock's cut, stalled
// and malformed streams. `live`: the text so far, then an in-band error, no `[DONE]`, and nothing
// more tried; `buffered` (header or compat.streamMode): exactly one complete answer, the fallback's.
import { createMockProvider, type MockBehavior, type MockProvider } from '@keel/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  rawStream,
  script,
  startCompatGateway,
  TOKEN,
  turnEndOf,
  upstream,
} from './compat-openai-support';
import { type GatewayProcess, removeDir } from './support/gateway-process';

let mock: MockProvider;
let gateway: GatewayProcess;
let bufferedGateway: GatewayProcess;

/** Each test's own route: `<name>` = `ca/<name>-a` then `co/<name>-o`. */
const names = [
  'cut',
  'stall',
  'malformed',
  'sdk',
  'bcut',
  'bstall',
  'bmalformed',
  'config',
  'leave',
];
const routes = Object.fromEntries(
  names.map((name) => [name, { primary: `ca/${name}-a`, fallbacks: [`co/${name}-o`] }]),
);

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startCompatGateway(mock, {
    authToken: TOKEN,
    models: { primary: 'co/st-default' },
    routes,
  });
  bufferedGateway = await startCompatGateway(mock, {
    authToken: TOKEN,
    models: { primary: 'co/st-default' },
    routes,
    compat: { streamMode: 'buffered' },
  });
});
afterAll(async () => {
  for (const running of [gateway, bufferedGateway]) {
    await running?.stop();
    if (running !== undefined) await removeDir(running.dir);
  }
  await mock?.close();
});

const ask = [{ role: 'user' as const, content: 'hi' }];
const faults: Record<string, MockBehavior> = {
  cut: { type: 'reset-after-chunks', chunks: 2, text: 'abcdefghijklmnopqrstuvwxyz' },
  stall: { type: 'stall', afterChunks: 2 },
  malformed: { type: 'ok', text: 'abcdefghijklmnopqrstuvwxyz', malformedAfterChunks: 2 },
};

type Chunk = OpenAI.ChatCompletionChunk;
const textOf = (data: unknown[]) =>
  data
    .filter((item): item is Chunk => typeof item === 'object' && item !== null && 'choices' in item)
    .map((chunk) => chunk.choices[0]?.delta.content ?? '')
    .join('');

describe('live: a failure after the first byte is an in-band error and no [DONE]', () => {
  for (const [name, fault] of Object.entries(faults)) {
    it(`${name}: the text so far, then data: {"error"}, the stream ends, the fallback is never asked`, async () => {
      script(mock, `${name}-a`, fault);
      script(mock, `${name}-o`, { type: 'ok', text: 'the fallback' });
      const stream = await rawStream(gateway, { model: name, messages: ask });
      expect(stream.status).toBe(200);
      expect(stream.done).toBe(false);
      expect(stream.text).not.toContain('[DONE]');
      expect(textOf(stream.data).length).toBeGreaterThan(0);
      expect(stream.data.at(-1)).toMatchObject({
        error: { type: 'server_error', message: expect.any(String) },
      });
      // The call was stopped at the failure (not answered by the fallback), and once it ended the
      // fallback had never been asked.
      const id = (stream.data[0] as Chunk).id;
      expect(await turnEndOf(gateway, id)).toMatchObject({ outcome: 'aborted' });
      expect(upstream(mock, `${name}-o`)).toEqual([]);
    });
  }

  it('the openai SDK’s stream throws an APIError after the first text', async () => {
    script(mock, 'sdk-a', faults['cut'] as MockBehavior);
    const client = new OpenAI({ apiKey: TOKEN, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'sdk',
      messages: ask,
      stream: true,
    });
    let text = '';
    const thrown = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().then(
      () => 'nothing thrown',
      (error: Error) => error.constructor.name,
    );
    expect(thrown).toBe('APIError');
    expect(text.length).toBeGreaterThan(0);
  });
});

describe('buffered: the client receives exactly one complete answer', () => {
  for (const [name, fault] of Object.entries(faults)) {
    it(`${name}: invisible, the fallback's whole answer and [DONE]`, async () => {
      script(mock, `b${name}-a`, fault);
      script(mock, `b${name}-o`, { type: 'ok', text: 'one complete answer' });
      const stream = await rawStream(
        gateway,
        { model: `b${name}`, messages: ask, stream_options: { include_usage: true } },
        { 'x-keel-stream-mode': 'buffered' },
      );
      expect(stream.status).toBe(200);
      expect(stream.done).toBe(true);
      expect(textOf(stream.data)).toBe('one complete answer');
      const chunks = stream.data.slice(0, -1) as Chunk[];
      expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
      expect(chunks.map((chunk) => chunk.model)).toEqual(chunks.map(() => `co/b${name}-o`));
      expect(chunks.filter((chunk) => chunk.choices[0]?.finish_reason === 'stop')).toHaveLength(1);
      expect(chunks.at(-1)).toMatchObject({
        choices: [],
        usage: { total_tokens: expect.any(Number) },
      });
      expect(
        stream.data.some((item) => typeof item === 'object' && item !== null && 'error' in item),
      ).toBe(false);
    });
  }

  it('compat.streamMode: buffered is the default the header overrides; an unknown mode is 400', async () => {
    script(mock, 'config-a', faults['cut'] as MockBehavior);
    script(mock, 'config-o', { type: 'ok', text: 'buffered by config' });
    const buffered = await rawStream(bufferedGateway, { model: 'config', messages: ask });
    expect({ text: textOf(buffered.data), done: buffered.done }).toEqual({
      text: 'buffered by config',
      done: true,
    });

    script(mock, 'config-a', faults['cut'] as MockBehavior);
    const live = await rawStream(
      bufferedGateway,
      { model: 'config', messages: ask },
      { 'x-keel-stream-mode': 'live' },
    );
    expect(live.done).toBe(false);
    expect(live.data.at(-1)).toMatchObject({ error: expect.any(Object) });

    const unknown = await rawStream(
      bufferedGateway,
      { model: 'config', messages: ask },
      { 'x-keel-stream-mode': 'fast' },
    );
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.text)).toMatchObject({ error: { type: 'invalid_request_error' } });
  });
});

describe('a client that goes away stops the call', () => {
  for (const [mode, streamed] of [
    ['plain', false],
    ['live', true],
    ['buffered', true],
  ] as const) {
    it(`${mode}: the upstream hangs, the client leaves, the call ends aborted (no fallback)`, async () => {
      script(mock, 'leave-a', { type: 'hang' });
      const controller = new AbortController();
      const earlier = new Set(gateway.logs);
      const ended = gateway.waitForLog(
        (line) =>
          !earlier.has(line) &&
          line['msg'] === 'turn ended' &&
          /\/leave-[ao]$/.test(String(line['model'])),
      );
      const received = mock.requests.length;
      const request = gateway.fetch('/v1/chat/completions', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${TOKEN}`,
          'x-keel-stream-mode': mode === 'buffered' ? 'buffered' : 'live',
        },
        body: JSON.stringify({ model: 'leave', messages: ask, stream: streamed }),
        signal: controller.signal,
      });
      await mock.waitForRequests(received + 1);
      expect(mock.requests.at(-1)?.model).toBe('leave-a');
      controller.abort();
      await expect(request).rejects.toThrow();
      // Without the stop, the first-token timeout (5 s) would fall over to the fallback and reply.
      expect(await ended).toMatchObject({ outcome: 'aborted', model: 'ca/leave-a' });
      expect(upstream(mock, 'leave-o')).toEqual([]);
    });
  }
});
