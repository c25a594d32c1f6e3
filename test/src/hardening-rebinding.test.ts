import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { rawRequest } from './support/raw-request';
import { runCli } from './support/run-cli';

// DNS rebinding: a page on attacker.test whose name the attacker re-points at 127.0.0.1 reaches
// a gateway without a token with `Host: attacker.test`. Without a token only loopback names pass.

const TOKEN = 'keeltest-REBIND-TOKEN-5d1c0a';
const demoConfig = (server: Record<string, unknown> = {}) => ({
  server,
  sessionsDir: 'sessions',
  providers: [{ id: 'demo', api: 'demo' }],
  models: { primary: 'demo/keel-demo' },
});

describe('a gateway without a token', () => {
  let gateway: GatewayProcess;
  let port: string;
  beforeAll(async () => {
    gateway = await startGateway({ config: demoConfig() });
    port = new URL(gateway.url).port;
    const first = await sendMessage(gateway, 'owned', { text: 'a private note' });
    expect(first.body['outcome']).toBe('reply');
  });
  afterAll(async () => {
    await gateway?.stop();
    if (gateway !== undefined) await removeDir(gateway.dir);
  });

  const routes: Array<[string, string, string?]> = [
    ['GET', '/v1/sessions'],
    ['GET', '/v1/sessions/owned'],
    ['GET', '/v1/sessions/owned/transcript'],
    ['GET', '/v1/sessions/owned/events'],
    // The event streams: refused before a stream opens (else this request would never end).
    ['GET', '/v1/sessions/owned/events?follow=1'],
    ['GET', '/v1/events?follow=1'],
    ['GET', '/v1/calls'],
    ['GET', '/console'],
    ['GET', '/metrics'],
    ['GET', '/healthz'],
    ['GET', '/v1/no-such-route'],
    ['POST', '/v1/sessions/owned/messages', JSON.stringify({ text: 'sent by a web page' })],
    ['PUT', '/v1/sessions/owned/model', JSON.stringify({ model: 'demo/keel-demo' })],
    ['POST', '/v1/sessions/owned/compact'],
    [
      'POST',
      '/v1/chat/completions',
      JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'hi' }] }),
    ],
  ];

  it.each(routes)(
    'refuses %s %s addressed to a name that is not loopback (421)',
    async (method, path, body) => {
      for (const host of [
        `attacker.test:${port}`,
        'attacker.test',
        `127.0.0.1.attacker.test:${port}`,
      ]) {
        const response = await rawRequest(gateway.url, {
          method,
          path,
          headers: {
            host,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body }),
        });
        expect(response.status, `${method} ${path} with Host ${host}`).toBe(421);
        expect(JSON.parse(response.text)).toMatchObject({ error: { code: 'misdirected_request' } });
        expect(response.text).not.toContain('private note');
      }
    },
  );

  it('let nothing through: the forged message is not in the transcript', async () => {
    const transcript = await (await gateway.fetch('/v1/sessions/owned/transcript')).text();
    expect(transcript).toContain('a private note');
    expect(transcript).not.toContain('sent by a web page');
  });

  it('answers every loopback name and address', async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      'LOCALHOST',
      `console.localhost:${port}`,
      `127.8.9.10:${port}`,
      `[::1]:${port}`,
    ]) {
      const response = await rawRequest(gateway.url, { path: '/v1/sessions', headers: { host } });
      expect(response.status, `Host ${host}`).toBe(200);
      expect(response.text).toContain('owned');
    }
  });

  it('refuses to bind to an address other machines reach', async () => {
    const run = await runCli(['--host', '0.0.0.0', '--port', '0']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('server.host "0.0.0.0" is not a loopback address');
    expect(run.stderr).toContain('server.authToken');
  });
});

describe('a gateway with a token', () => {
  let gateway: GatewayProcess;
  beforeAll(async () => {
    gateway = await startGateway({
      config: demoConfig({ authToken: TOKEN }),
      args: ['--host', '0.0.0.0'],
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    if (gateway !== undefined) await removeDir(gateway.dir);
  });

  it('binds to every address and answers any Host that carries the token (a page has none)', async () => {
    const port = new URL(gateway.url).port;
    const withToken = await rawRequest(`http://127.0.0.1:${port}`, {
      path: '/v1/sessions',
      headers: { host: `gateway.example:${port}`, authorization: `Bearer ${TOKEN}` },
    });
    expect(withToken.status).toBe(200);
    const without = await rawRequest(`http://127.0.0.1:${port}`, {
      path: '/v1/sessions',
      headers: { host: `attacker.test:${port}` },
    });
    expect(without.status).toBe(401);
  });
});
