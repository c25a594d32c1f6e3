import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  baseUrlFor,
  drain,
  hello,
  SDK_TARGETS,
  transportFor,
  useMockProvider,
} from '../test/mock-transport';
import { AGENTS, httpFetch } from './http-fetch';
import type { HttpBody } from './http-response';

/** A loopback server: each test sets what it answers; connections and requests are counted. */
let server: Server;
let base = '';
let connections = 0;
let seen: IncomingMessage[] = [];
let answer: (request: IncomingMessage, response: ServerResponse, body: string) => void;

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(request);
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => answer(request, response, body));
  });
  server.on('connection', () => {
    connections += 1;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});
afterEach(() => {
  seen = [];
});

const post = (path: string, init: RequestInit = {}) =>
  httpFetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'error',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    body: '{"hello":"world"}',
    ...init,
  });

describe('httpFetch', () => {
  it('sends the method, headers and body as given and hands back status, headers and body', async () => {
    answer = (_request, response, body) => {
      response.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-request-id': 'r1' });
      response.end(JSON.stringify({ echoed: body }));
    };
    const response = await post('/v1/things', {
      headers: new Headers({ 'x-extra': 'yes', authorization: 'Bearer sk-test' }),
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.headers.get('x-request-id')).toBe('r1');
    expect(await response.json()).toEqual({ echoed: '{"hello":"world"}' });
    const [request] = seen;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/v1/things');
    expect(request?.headers['x-extra']).toBe('yes');
    expect(request?.headers.authorization).toBe('Bearer sk-test');
    expect(request?.headers['accept-encoding']).toBe('gzip, deflate');
  });

  it('keeps the connection open between requests', async () => {
    answer = (_request, response) => response.end('{}');
    await (await post('/a')).text();
    const before = connections;
    for (let index = 0; index < 3; index += 1) await (await post('/b')).text();
    expect(connections).toBe(before);
  });

  it('decompresses a gzip answer, as fetch does', async () => {
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(gzipSync('{"packed":true}'));
    };
    expect(await (await post('/gz')).json()).toEqual({ packed: true });
  });

  it('streams the answer as it arrives', async () => {
    let finish: () => void = () => undefined;
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
      finish = () => response.end('data: two\n\n');
    };
    const response = await post('/sse');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: one\n\n');
    finish();
    const second = await reader.read();
    expect(new TextDecoder().decode(second.value)).toBe('data: two\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('answers a 204 with no body', async () => {
    answer = (_request, response) => response.writeHead(204).end();
    const response = await post('/empty');
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('refuses a redirect with TypeError("fetch failed"), never following it', async () => {
    answer = (request, response) => {
      if (request.url === '/moved') response.writeHead(307, { location: `${base}/to` }).end();
      else response.end('{}');
    };
    const error = await post('/moved').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('fetch failed');
    expect(seen.map((request) => request.url)).toEqual(['/moved']);
  });

  it('rejects a connection failure as fetch does: TypeError("fetch failed") with the cause', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await httpFetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      redirect: 'error',
      body: '{}',
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('fetch failed');
    expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('stops on abort: before the answer, and while its body is read', async () => {
    answer = () => undefined; // never answers
    const before = new AbortController();
    const pending = post('/slow', { signal: before.signal });
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    before.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });

    const aborted = new AbortController();
    aborted.abort(new Error('gone'));
    await expect(post('/never', { signal: aborted.signal })).rejects.toThrow('gone');

    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
    };
    const during = new AbortController();
    const response = await post('/sse-cut', { signal: during.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    during.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('keeps the connection of an answer its reader stops reading just before its end (as an SDK does at the last event), an abort after that included', async () => {
    let finish: () => void = () => undefined;
    let serverSocket: Socket | undefined;
    answer = (request, response) => {
      serverSocket = request.socket;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: last\n\n');
      finish = () => response.end();
    };
    const controller = new AbortController();
    const response = await post('/sse-last', { signal: controller.signal });
    const freed = once(AGENTS['http:'], 'free').then(([socket]) => socket as Socket);
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      expect(new TextDecoder().decode(chunk)).toBe('data: last\n\n');
      break;
    }
    // What the SDKs do once they stop reading: abort their own controller.
    controller.abort();
    finish();
    const closed = once(serverSocket as Socket, 'close').then(() => 'closed');
    const kept = await Promise.race([freed, closed]);
    expect(kept).not.toBe('closed');
    expect((kept as Socket).localPort).toBe(serverSocket?.remotePort);
  });

  it('cuts an answer its reader let go of that does not end by itself', async () => {
    let closed: Promise<unknown> = Promise.resolve();
    answer = (_request, response) => {
      closed = once(response, 'close');
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
    };
    const response = await post('/sse-endless');
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    // Closed by the client: the answer never ends by itself.
    await closed;
    expect((response.body as unknown as HttpBody).letGo).toBe(true);
  });

  it('leaves to the global fetch what it does not send itself: a redirect to follow, a streamed body, a custom dispatcher', async () => {
    answer = (request, response) => {
      if (request.url === '/moved') response.writeHead(307, { location: `${base}/to` }).end();
      else response.end(request.url);
    };
    const followed = await httpFetch(`${base}/moved`, { method: 'POST', body: '{}' });
    expect(await followed.text()).toBe('/to');
    const streamed = await httpFetch(`${base}/stream`, {
      method: 'POST',
      redirect: 'error',
      body: new Blob(['{}']).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(await streamed.text()).toBe('/stream');

    const key = Symbol.for('undici.globalDispatcher.1');
    const globals = globalThis as Record<symbol, unknown>;
    const installed = globals[key];
    class ProxyAgent {}
    const global = vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('via global'));
    try {
      globals[key] = new ProxyAgent();
      expect(await (await post('/proxied')).text()).toBe('via global');
      expect(global).toHaveBeenCalledTimes(1);
    } finally {
      globals[key] = installed;
      global.mockRestore();
    }
  });
});

const mock = useMockProvider();

describe.each(SDK_TARGETS)('$name: the transport option `fetch`', (target) => {
  it('is the fetch a client the transport builds sends with', async () => {
    const calls: string[] = [];
    const recording = (input: string | URL | Request, init?: RequestInit) => {
      calls.push(String(input));
      return fetch(input, init);
    };
    const transport = transportFor(target, mock, { fetch: recording });
    const { error } = await drain(transport.stream(hello));
    expect(error).toBeUndefined();
    expect(calls).toHaveLength(1);
    expect(calls[0]?.startsWith(new URL(baseUrlFor(target.api, mock)).origin)).toBe(true);
  });
});

/** The SDKs that read a streamed answer with `for await` over `response.body` (openai 7 asks for a reader). */
const ITERATING = SDK_TARGETS.filter((target) => !target.name.includes('openai 7'));

describe.each(ITERATING)('$name: a streamed answer through httpFetch', (target) => {
  it('is read straight from the Node stream: no web stream is made', async () => {
    const toWeb = vi.spyOn(Readable, 'toWeb');
    try {
      const { events, error } = await drain(transportFor(target, mock).stream(hello));
      expect(error).toBeUndefined();
      expect(events.some((event) => event.type === 'text-delta')).toBe(true);
      expect(toWeb).not.toHaveBeenCalled();
    } finally {
      toWeb.mockRestore();
    }
  });
});

describe.each(SDK_TARGETS)('$name: streamed calls through httpFetch', (target) => {
  it('share kept-alive connections: each call does not open one of its own', async () => {
    const transport = transportFor(target, mock);
    for (let call = 0; call < 6; call += 1) {
      const { error } = await drain(transport.stream(hello));
      expect(error).toBeUndefined();
    }
    const used = new Set(mock.requests.map((request) => request.connection));
    expect(mock.requests).toHaveLength(6);
    // A call may start before the last one's connection is back in the pool: two at most.
    expect(used.size).toBeLessThanOrEqual(2);
  });
});
