import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { rawRequest } from './support/raw-request';

// CSRF: a page on another origin may send `fetch(url, { method: 'POST', mode: 'no-cors' })` (no
// body, no preflight) to a gateway on 127.0.0.1: nothing may change, whatever the route.

let gateway: GatewayProcess;
let host: string;

beforeAll(async () => {
  gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      providers: [
        { id: 'demo', api: 'demo' },
        { id: 'demo-backup', api: 'demo' },
      ],
      models: { primary: 'demo/keel-demo', fallbacks: ['demo-backup/keel-demo-backup'] },
    },
  });
  host = new URL(gateway.url).host;
  for (const text of ['one', 'two', 'three'])
    expect((await sendMessage(gateway, 'victim', { text })).status).toBe(200);
});
afterAll(async () => {
  await gateway?.stop();
  if (gateway !== undefined) await removeDir(gateway.dir);
});

const transcript = async () => (await gateway.fetch('/v1/sessions/victim/transcript')).text();

/** What a browser adds to a request from a page on `origin` (the Host is the gateway's own). */
const crossOrigin: Array<[string, () => Record<string, string>]> = [
  ['Origin of another site', () => ({ origin: 'http://attacker.test' })],
  ['Origin of another port', () => ({ origin: 'http://127.0.0.1:1' })],
  ['an opaque Origin (sandboxed frame, file:)', () => ({ origin: 'null' })],
  ['Sec-Fetch-Site: cross-site', () => ({ 'sec-fetch-site': 'cross-site' })],
  ['Sec-Fetch-Site: same-site', () => ({ 'sec-fetch-site': 'same-site' })],
];

describe.each(crossOrigin)('a state-changing request with %s', (_name, headers) => {
  it('POST …/compact without a body is refused (403) and compacts nothing', async () => {
    const before = await transcript();
    const response = await rawRequest(gateway.url, {
      method: 'POST',
      path: '/v1/sessions/victim/compact',
      headers: { host, ...headers() },
    });
    expect(response.status).toBe(403);
    expect(JSON.parse(response.text)).toMatchObject({ error: { code: 'cross_origin_refused' } });
    expect(await transcript()).toBe(before);
  });

  it('POST …/messages and PUT …/model are refused (403) and change nothing', async () => {
    const before = await transcript();
    const message = await rawRequest(gateway.url, {
      method: 'POST',
      path: '/v1/sessions/victim/messages',
      headers: { host, 'content-type': 'application/json', ...headers() },
      body: JSON.stringify({ text: 'sent by a web page' }),
    });
    expect(message.status).toBe(403);
    const model = await rawRequest(gateway.url, {
      method: 'PUT',
      path: '/v1/sessions/victim/model',
      headers: { host, 'content-type': 'application/json', ...headers() },
      body: JSON.stringify({ model: 'demo-backup/keel-demo-backup' }),
    });
    expect(model.status).toBe(403);
    expect(await transcript()).toBe(before);
  });
});

describe('requests that are not cross-origin', () => {
  it('reads from another origin are not refused here (the browser keeps their answers from the page)', async () => {
    const response = await rawRequest(gateway.url, {
      path: '/v1/sessions/victim',
      headers: { host, origin: 'http://attacker.test', 'sec-fetch-site': 'cross-site' },
    });
    expect(response.status).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('the console (same origin) and clients that are not browsers change state as before', async () => {
    const sameOrigin = await rawRequest(gateway.url, {
      method: 'PUT',
      path: '/v1/sessions/victim/model',
      headers: {
        host,
        origin: gateway.url,
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ model: 'demo-backup/keel-demo-backup' }),
    });
    expect(sameOrigin.status).toBe(200);
    const plain = await rawRequest(gateway.url, {
      method: 'POST',
      path: '/v1/sessions/victim/compact',
      headers: { host },
    });
    expect(plain.status).toBe(200);
    expect(await transcript()).toContain('demo-backup/keel-demo-backup');
  });
});
