import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';
import { rawRequest } from './support/raw-request';
import { runCli } from './support/run-cli';
import { readSse, type SseReader } from './support/sse-events';

// Distinctive fake secrets: one written in the config, one substituted from the environment,
// ones the environment holds without the config using them, and the bearer token.
const CONFIG_KEY = 'keeltest-CONFIGKEY-8c1e55d0a9f3';
const ENV_KEY = 'sk-ant-keeltest-ENVKEY-31b7f0c2e4d8';
const UNUSED_ANTHROPIC = 'sk-ant-keeltest-UNUSEDA-0b9e77c1';
const UNUSED_OPENAI = 'sk-keeltest-UNUSEDO-5f2a9d31c7';
const TOKEN = 'keeltest-TOKEN-f00dfacecafe';
const SECRETS = [CONFIG_KEY, ENV_KEY, UNUSED_ANTHROPIC, UNUSED_OPENAI, TOKEN];
/** A secret-looking detail only a provider's error body holds. */
const DETAIL = 'PROVIDERDETAIL-org_7Hq2-internal-trace-91ac';

/** The configuration's `${NAME}` substitution syntax. */
const envRef = (name: string) => `\${${name}}`;
const AUTH = { authorization: `Bearer ${TOKEN}` };
let mock: MockProvider;
let gateway: GatewayProcess;
let follower: SseReader;
const responses: string[] = [];

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startGateway({
    config: {
      server: { authToken: envRef('KEEL_TEST_TOKEN') },
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'sec-a',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: envRef('KEEL_TEST_ANTHROPIC_KEY') }],
        },
        {
          id: 'sec-o',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: CONFIG_KEY }],
        },
      ],
      models: { primary: 'sec-a/sec-model-a', fallbacks: ['sec-o/sec-model-o'] },
      retry: { maxRetries: 0 },
    },
    env: {
      KEEL_TEST_ANTHROPIC_KEY: ENV_KEY,
      KEEL_TEST_TOKEN: TOKEN,
      ANTHROPIC_API_KEY: UNUSED_ANTHROPIC,
      OPENAI_API_KEY: UNUSED_OPENAI,
    },
  });
  const controller = new AbortController();
  follower = readSse(
    await gateway.fetch('/v1/events?follow=1', { headers: AUTH, signal: controller.signal }),
    controller,
  );
});
afterAll(async () => {
  follower?.close();
  await gateway?.stop();
  await mock?.close();
  if (gateway !== undefined) await removeDir(gateway.dir);
});

async function call(path: string, init: RequestInit = {}): Promise<string> {
  const response = await gateway.fetch(path, {
    ...init,
    headers: { ...AUTH, ...(init.headers as object) },
  });
  const text = await response.text();
  responses.push(`${response.status} ${JSON.stringify([...response.headers])} ${text}`);
  return text;
}

async function send(sessionId: string, body: Record<string, unknown>, accept?: string) {
  return call(`/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(accept === undefined ? {} : { accept }) },
    body: JSON.stringify(body),
  });
}

/** Everything the gateway shows or keeps about the given sessions, each kind as one text. */
async function everything(sessionIds: readonly string[]) {
  const transcripts: string[] = [];
  const events: string[] = [];
  for (const id of sessionIds) {
    transcripts.push(await call(`/v1/sessions/${id}/transcript`));
    events.push(await call(`/v1/sessions/${id}/events`));
  }
  const dir = join(gateway.dir, 'sessions');
  for (const name of await readdir(dir)) transcripts.push(await readFile(join(dir, name), 'utf8'));
  events.push(JSON.stringify(follower.events));
  return {
    transcripts: transcripts.join('\n'),
    events: events.join('\n'),
    metrics: await call('/metrics'),
    responses: responses.join('\n'),
    logs: gateway.output(),
  };
}

describe('control characters in user input never reach the logs raw', () => {
  const text =
    'hi \u001b[31mRED\u001b[0m\r\n{"level":60,"msg":"FORGED LINE"}\r\nbidi \u202eevil\u202c ' +
    '\u2066iso\u2069 \u200fmark bell\u0007 tab\t del\u007f';

  it('keeps the text intact in the transcript and writes only clean JSON lines', async () => {
    mock.enqueue({ behavior: { type: 'ok', text: 'noted' }, match: { model: 'sec-model-a' } });
    const answer = JSON.parse(
      await send('ctl-1', { text, clientMessageId: 'cm-\u001b[2J\u202e-\r\nFORGED' }),
    );
    expect(answer).toMatchObject({ outcome: 'reply', text: 'noted' });
    // Headers carrying raw UTF-8 bidi controls (Node refuses raw controls in the URL itself).
    const raw = await rawRequest(gateway.url, {
      path: '/v1/sessions/ctl-1/events?limit=5',
      headers: { ...AUTH, 'user-agent': 'agent \u202e evil' },
    });
    expect(raw.status).toBe(200);
    await call('/v1/sessions/ctl-1/events?limit=5&note=%1B%5B31m%0D%0AFORGED');

    const transcript = JSON.parse(await call('/v1/sessions/ctl-1/transcript')) as {
      entries: Array<{ type: string; role?: string; content?: unknown }>;
    };
    const user = transcript.entries.find((entry) => entry.role === 'user');
    expect(user?.content).toEqual([{ type: 'text', text }]);

    const logs = gateway.output();
    // eslint-disable-next-line no-control-regex
    expect(logs).not.toMatch(
      /[\u0000-\u0008\u000b-\u001f\u007f\u200e\u200f\u202a-\u202e\u2066-\u2069]/u,
    );
    for (const line of logs.split('\n').filter((l) => l !== '')) {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      expect(parsed['msg']).not.toBe('FORGED LINE');
      expect(typeof parsed['level']).toBe('number');
    }
    expect(mock.pending()).toBe(0);
  });
});

describe('no key and no provider detail leaks', () => {
  it('a provider 400 whose body holds a secret-looking detail and keys', async () => {
    mock.enqueue({
      behavior: {
        type: 'http-error',
        status: 400,
        errorType: 'invalid_request_error',
        message: `Invalid request ${DETAIL}: key ${ENV_KEY} (also tried ${CONFIG_KEY}, ${UNUSED_OPENAI}, ${TOKEN})`,
      },
      match: { model: 'sec-model-a' },
    });
    const json = JSON.parse(await send('leak-400', { text: 'hello' }));
    expect(json).toMatchObject({ outcome: 'error', errorKind: 'invalid_request' });
    expect(mock.pending()).toBe(0);
  });

  it('the same over the event stream', async () => {
    mock.enqueue({
      behavior: {
        type: 'http-error',
        status: 400,
        errorType: 'invalid_request_error',
        message: `Invalid request ${DETAIL} ${ENV_KEY} ${CONFIG_KEY}`,
      },
      match: { model: 'sec-model-a' },
    });
    const stream = await send('leak-sse', { text: 'hello' }, 'text/event-stream');
    expect(stream).toMatch(/^event: outcome$/m);
    expect(mock.pending()).toBe(0);
  });

  it('providers that reject the key (401), both of them', async () => {
    mock.enqueue(
      {
        behavior: {
          type: 'http-error',
          status: 401,
          errorType: 'authentication_error',
          message: `invalid x-api-key ${ENV_KEY} ${DETAIL}`,
        },
        match: { model: 'sec-model-a' },
      },
      {
        behavior: {
          type: 'http-error',
          status: 401,
          errorType: 'invalid_request_error',
          code: 'invalid_api_key',
          message: `Incorrect API key provided: ${CONFIG_KEY}. ${DETAIL} (and ${ENV_KEY})`,
        },
        match: { model: 'sec-model-o' },
      },
    );
    const json = JSON.parse(await send('leak-401', { text: 'hello' }));
    expect(json).toMatchObject({ outcome: 'error', errorKind: 'auth' });
    // The keys went to the providers, so there was something to leak.
    expect(mock.requests.map((request) => request.apiKey)).toEqual(
      expect.arrayContaining([ENV_KEY, CONFIG_KEY]),
    );
    expect(mock.pending()).toBe(0);
  });

  it('nowhere: responses, transcripts, events, metrics, logs', async () => {
    const seen = await everything(['ctl-1', 'leak-400', 'leak-sse', 'leak-401']);
    for (const [where, text] of Object.entries(seen)) {
      for (const secret of SECRETS) {
        expect({ where, found: text.includes(secret) }).toEqual({ where, found: false });
      }
    }
    for (const where of ['transcripts', 'events', 'metrics', 'responses'] as const) {
      expect({ where, found: seen[where].includes(DETAIL) }).toEqual({ where, found: false });
    }
    // The events still tell what happened, without the provider's words.
    expect(seen.events).toMatch(/"type":"attempt-error"/);
  });
});

/** Not even part of one: no 8 characters in a row of any secret. */
function expectNoPieceOfASecret(output: string): void {
  for (const secret of SECRETS) {
    for (let start = 0; start + 8 <= secret.length; start += 1) {
      expect(output).not.toContain(secret.slice(start, start + 8));
    }
  }
}

describe('an invalid configuration never prints a secret', () => {
  it('names the bad paths, not the values', async () => {
    const path = join(gateway.dir, 'bad.config.json');
    await writeFile(
      path,
      JSON.stringify({
        server: { port: 'not-a-port', authToken: TOKEN },
        providers: [
          { id: 'a', api: 'anthropic-messages', profiles: [{ id: 'main', apiKey: CONFIG_KEY }] },
          {
            id: 'o',
            api: 'openai-chat',
            profiles: [{ id: 'main', apiKey: envRef('KEEL_TEST_KEY') }],
          },
        ],
        models: { primary: 'nosuch/model' },
      }),
    );
    const run = await runCli(['--config', path], { env: { KEEL_TEST_KEY: ENV_KEY } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/server\.port/);
    expectNoPieceOfASecret(run.stdout + run.stderr);
  });

  it('nor when the file is not valid JSON right next to a key', async () => {
    const path = join(gateway.dir, 'broken.config.json');
    for (const text of [
      `{"providers": [{"profiles": [{"apiKey": ${CONFIG_KEY}}]}]}`,
      `{"providers": [{"profiles": [{"apiKey": "${CONFIG_KEY}" "id": 1}]}]}`,
      `{"server": {"authToken": "${TOKEN}",}}`,
      `{"server": {"authToken": "${TOKEN}"`,
    ]) {
      await writeFile(path, text);
      const run = await runCli(['--config', path]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/not valid JSON/);
      expectNoPieceOfASecret(run.stdout + run.stderr);
    }
  });
});
