import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from './support/expect-api-error';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';
import { rawRequest } from './support/raw-request';
import { readSse } from './support/sse-events';

const TOKEN = 'keel-test-token-5d1f';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_TYPE = { 'content-type': 'application/json' };

let mock: MockProvider;
let gateway: GatewayProcess;

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startGateway({
    config: {
      server: { authToken: TOKEN, bodyLimitBytes: 4096 },
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'api',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-api-0001' }],
        },
      ],
      models: { primary: 'api/api-model', settings: { 'api/api-model-2': {} } },
    },
  });
});
afterAll(async () => {
  await gateway?.stop();
  await mock?.close();
  if (gateway !== undefined) await removeDir(gateway.dir);
});

const api = (path: string, init: RequestInit = {}) =>
  gateway.fetch(path, { ...init, headers: { ...AUTH, ...(init.headers as object) } });

async function post(sessionId: string, body: unknown) {
  const response = await api(`/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    headers: JSON_TYPE,
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const sessionFiles = async () =>
  (await readdir(join(gateway.dir, 'sessions')).catch(() => [])).sort();

describe('every route answers as the contract says (with the bearer token)', () => {
  it('POST messages, GET session, transcript, events; PUT model; POST compact', async () => {
    mock.enqueue({ behavior: { type: 'ok', text: 'first answer' }, match: { model: 'api-model' } });
    const first = await post('routes-1', { text: 'hello', clientMessageId: 'routes-1-a' });
    expect(first).toEqual({
      status: 200,
      body: {
        messageId: expect.any(String),
        clientMessageId: 'routes-1-a',
        turnId: expect.any(String),
        outcome: 'reply',
        text: 'first answer',
        model: 'api/api-model',
        provider: 'api',
        // The mock's Anthropic wire reports the prompt cache's counts too (zero here).
        usage: { inputTokens: 18, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    });

    const summary = (await (await api('/v1/sessions/routes-1')).json()) as { entryCount: number };
    expect(summary).toMatchObject({
      sessionId: 'routes-1',
      selectedModel: 'api/api-model',
      entryCount: expect.any(Number),
      lastCompaction: null,
      running: false,
    });
    expect(summary.entryCount).toBeGreaterThanOrEqual(2);

    const transcript = (await (await api('/v1/sessions/routes-1/transcript')).json()) as {
      entries: Array<Record<string, unknown>>;
    };
    const messages = transcript.entries.filter((entry) => entry['type'] === 'message');
    expect(messages.map((entry) => [entry['role'], entry['content']])).toEqual([
      ['user', [{ type: 'text', text: 'hello' }]],
      ['assistant', [{ type: 'text', text: 'first answer' }]],
    ]);

    const switched = await api('/v1/sessions/routes-1/model', {
      method: 'PUT',
      headers: JSON_TYPE,
      body: JSON.stringify({ model: 'api/api-model-2' }),
    });
    expect(switched.status).toBe(200);
    expect(await switched.json()).toMatchObject({
      sessionId: 'routes-1',
      model: 'api/api-model-2',
    });
    expect(await (await api('/v1/sessions/routes-1')).json()).toMatchObject({
      selectedModel: 'api/api-model-2',
    });
    mock.enqueue({
      behavior: { type: 'ok', text: 'from model two' },
      match: { model: 'api-model-2' },
    });
    expect((await post('routes-1', { text: 'again' })).body).toMatchObject({
      outcome: 'reply',
      text: 'from model two',
      model: 'api/api-model-2',
    });

    for (const init of [
      {},
      { headers: JSON_TYPE, body: '{}' },
      { headers: JSON_TYPE, body: '{"focus":"names"}' },
    ]) {
      const compact = await api('/v1/sessions/routes-1/compact', { method: 'POST', ...init });
      expect(compact.status).toBe(200);
      expect(await compact.json()).toMatchObject({ compacted: expect.any(Boolean) });
    }

    const events = (await (await api('/v1/sessions/routes-1/events')).json()) as {
      events: Array<Record<string, unknown>>;
    };
    const ends = events.events.filter((event) => event['type'] === 'turn-end');
    expect(ends.map((event) => event['turnId'])).toContain(first.body['turnId']);
    const limited = (await (await api('/v1/sessions/routes-1/events?limit=2')).json()) as {
      events: unknown[];
    };
    expect(limited.events).toEqual(events.events.slice(-2));
    const listed = (await (await api('/v1/sessions?limit=1&prefix=routes-1')).json()) as {
      sessions: Array<{ sessionId: string }>;
    };
    expect(listed.sessions.map((s) => s.sessionId)).toEqual(['routes-1']);
    expect(mock.pending()).toBe(0);
  });

  it('GET events?follow=1 replays the recent events, then streams new ones', async () => {
    mock.enqueue({ behavior: { type: 'ok', text: 'followed' }, match: { model: 'api-model' } });
    const before = await post('routes-2', { text: 'one' });
    const controller = new AbortController();
    const session = readSse(
      await api('/v1/sessions/routes-2/events?follow=1', { signal: controller.signal }),
      controller,
    );
    const everything = new AbortController();
    const all = readSse(
      await api('/v1/events?follow=1', { signal: everything.signal }),
      everything,
    );
    await session.next(
      (event) =>
        event.event === 'turn-event' &&
        (event.data as Record<string, unknown>)['turnId'] === before.body['turnId'],
    );
    const after = await post('routes-2', { text: 'two' });
    const isEnd = (event: { event: string; data: unknown }) =>
      (event.data as Record<string, unknown>)['type'] === 'turn-end' &&
      (event.data as Record<string, unknown>)['turnId'] === after.body['turnId'];
    await session.next(isEnd);
    await all.next(isEnd);
    session.close();
    all.close();
  });

  it('lists sessions, provider health, liveness and metrics', async () => {
    const sessions = (await (await api('/v1/sessions')).json()) as {
      sessions: Array<{ sessionId: string }>;
    };
    expect(sessions.sessions.map((s) => s.sessionId)).toEqual(
      expect.arrayContaining(['routes-1', 'routes-2']),
    );
    const health = await api('/v1/providers/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual(expect.any(Object));
    expect(await (await gateway.fetch('/healthz')).json()).toEqual({ status: 'ok' });
    const metrics = await api('/metrics');
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await metrics.text()).toMatch(
      /^keel_turns_total\{outcome="reply",api="sessions"\} \d+$/m,
    );
  });
});

describe('bad input: a JSON error, never a turn', () => {
  it('rejects malformed, missing, empty and wrongly typed message bodies with 400', async () => {
    const before = mock.requests.length;
    const bodies = [
      '{"text": "unterminated',
      '{}',
      '{"text": 5}',
      '{"text": true}',
      '{"text": ["hi"]}',
      '{"text": null}',
      '{"text": ""}',
      '{"text": " \\n\\t "}',
      '{"text": "hi", "clientMessageId": 5}',
      '{"text": "hi", "clientMessageId": ""}',
      // A field the API does not read (here a misspelt clientMessageId) is not ignored.
      '{"text": "hi", "clientMessageID": "c-1"}',
      '[]',
      'null',
      '"hi"',
      '',
    ];
    for (const body of bodies) {
      const response = await api('/v1/sessions/bad-body/messages', {
        method: 'POST',
        headers: JSON_TYPE,
        body,
      });
      expectApiError(response.status, await response.text(), 400, 'invalid_request');
    }
    // Asking for an event stream changes nothing: a bad request is a JSON error before any event.
    const streamed = await api('/v1/sessions/bad-body/messages', {
      method: 'POST',
      headers: { ...JSON_TYPE, accept: 'text/event-stream' },
      body: '{"text": 5}',
    });
    expect(streamed.headers.get('content-type')).toMatch(/^application\/json/);
    expectApiError(streamed.status, await streamed.text(), 400, 'invalid_request');
    const noBody = await api('/v1/sessions/bad-body/messages', { method: 'POST' });
    expectApiError(noBody.status, await noBody.text(), 400, 'invalid_request');
    expect(mock.requests.length).toBe(before);
    expect(await sessionFiles()).not.toContain('bad-body.jsonl');
  });

  it('names what is wrong', async () => {
    const cases: Array<[string, RegExp]> = [
      ['{"text": "unterminated', /not valid JSON/i],
      ['{}', /text/],
      ['{"text": 5}', /text.*string/],
      ['{"text": ""}', /text/],
      ['', /empty/i],
      ['{"text": "hi", "model": "x/y"}', /^Invalid body: the body has a field it does not accept$/],
    ];
    for (const [body, message] of cases) {
      const response = await api('/v1/sessions/bad-body/messages', {
        method: 'POST',
        headers: JSON_TYPE,
        body,
      });
      const answer = (await response.json()) as { error: { message: string } };
      expect(answer.error.message).toMatch(message);
      expect(answer.error.message).not.toMatch(/ {2}|^Invalid body: $/);
    }
  });

  it('answers a body that is not JSON with 415', async () => {
    for (const [type, body] of [
      ['text/plain', 'hello'],
      ['application/x-www-form-urlencoded', 'text=hello'],
      ['application/xml', '<text>hello</text>'],
    ] as const) {
      const response = await api('/v1/sessions/bad-type/messages', {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      expectApiError(response.status, await response.text(), 415, 'unsupported_media_type');
    }
    expect(await sessionFiles()).not.toContain('bad-type.jsonl');
  });

  it('answers a body over server.bodyLimitBytes with 413', async () => {
    const before = mock.requests.length;
    const response = await api('/v1/sessions/too-big/messages', {
      method: 'POST',
      headers: JSON_TYPE,
      body: JSON.stringify({ text: 'x'.repeat(5000) }),
    });
    expectApiError(response.status, await response.text(), 413, 'payload_too_large');
    expect(mock.requests.length).toBe(before);
  });

  it('rejects bad session ids with 400 on every session route, sent byte for byte', async () => {
    const badIds = [
      '..',
      '..%2Fx',
      '%2e%2e%2fx',
      '%2E%2E',
      'a%2Fb',
      'a%5Cb',
      'a'.repeat(129),
      'a'.repeat(3000),
      '.hidden',
      '-dash',
      '_under',
      'a%0Ab',
      'a%0D%0Ab',
      'a%1B%5B31mred',
      'a%00b',
      'a%E2%80%AEb',
      'a%20b',
      'a%',
      '%E0%A4%A',
    ];
    const routes = [
      { method: 'POST', suffix: '/messages', body: '{"text":"hi"}' },
      { method: 'GET', suffix: '' },
      { method: 'GET', suffix: '/transcript' },
      { method: 'PUT', suffix: '/model', body: '{"model":"api/api-model"}' },
      { method: 'POST', suffix: '/compact' },
      { method: 'GET', suffix: '/events' },
    ];
    const before = mock.requests.length;
    const filesBefore = await sessionFiles();
    for (const id of badIds) {
      for (const route of routes) {
        const response = await rawRequest(gateway.url, {
          method: route.method,
          path: `/v1/sessions/${id}${route.suffix}`,
          headers: { ...AUTH, ...(route.body === undefined ? {} : JSON_TYPE) },
          ...(route.body === undefined ? {} : { body: route.body }),
        });
        expectApiError(response.status, response.text, 400, 'invalid_request');
      }
    }
    // Dot segments that split the path never reach a session either.
    for (const path of [
      '/v1/sessions/../x/transcript',
      '/v1/sessions/%2e%2e/%2e%2e/x/transcript',
    ]) {
      const response = await rawRequest(gateway.url, { path, headers: AUTH });
      expect([400, 404]).toContain(response.status);
      expectApiError(
        response.status,
        response.text,
        response.status,
        response.status === 400 ? 'invalid_request' : 'not_found',
      );
    }
    expect(mock.requests.length).toBe(before);
    expect(await sessionFiles()).toEqual(filesBefore);

    // The longest valid id and the full alphabet are accepted (no such session yet).
    for (const id of ['a'.repeat(128), 'Az09._-x']) {
      const response = await api(`/v1/sessions/${id}/transcript`);
      expectApiError(response.status, await response.text(), 404, 'not_found');
    }
  });

  it('rejects bad bodies and query strings on the other routes with 400', async () => {
    const cases: Array<[string, string, string | undefined]> = [
      ['PUT', '/v1/sessions/other/model', '{"model": 5}'],
      ['PUT', '/v1/sessions/other/model', '{}'],
      ['PUT', '/v1/sessions/other/model', '{"model": "nosuch/model"}'],
      ['PUT', '/v1/sessions/other/model', '{"model": "no-slash"}'],
      ['PUT', '/v1/sessions/other/model', '{"model": "api/x'],
      ['PUT', '/v1/sessions/other/model', undefined],
      ['POST', '/v1/sessions/other/compact', '{"focus": 3}'],
      ['POST', '/v1/sessions/other/compact', '[1]'],
      ['GET', '/v1/sessions/other/events?follow=2', undefined],
      ['GET', '/v1/sessions/other/events?limit=abc', undefined],
      ['GET', '/v1/sessions/other/events?limit=0', undefined],
      ['GET', '/v1/sessions/other/events?limit=1001', undefined],
      ['GET', '/v1/sessions/other/events?limit=2.5', undefined],
      ['GET', '/v1/sessions?limit=-1', undefined],
    ];
    for (const [method, path, body] of cases) {
      const response = await api(path, {
        method,
        ...(body === undefined ? {} : { headers: JSON_TYPE, body }),
      });
      expectApiError(response.status, await response.text(), 400, 'invalid_request');
    }
  });

  it('answers requests Node cannot parse with a 400 JSON error', async () => {
    for (const path of [
      '/v1/sessions/a\u001bb/transcript',
      '/v1/sessions/\u202e/transcript',
      '/v1/a b',
    ]) {
      const response = await rawRequest(gateway.url, { path, headers: AUTH });
      expectApiError(response.status, response.text, 400, 'invalid_request');
    }
  });

  it('answers unknown routes and methods with a 404 JSON error', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['GET', '/v1/sessions/x/messages'],
      ['DELETE', '/v1/sessions/x'],
      ['POST', '/v1/sessions/x/unknown'],
      ['GET', '/v2/sessions'],
    ] as const) {
      const response = await api(path, { method });
      expectApiError(response.status, await response.text(), 404, 'not_found');
    }
  });
});
