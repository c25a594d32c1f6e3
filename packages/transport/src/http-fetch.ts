// Why this exists: Node's `fetch` (undici) costs a proxy hop about a millisecond more per request
// than `node:http` on loopback (its request and response objects, web streams on both sides, a
// body copy), and the gateway makes one such call per turn. The SDK clients the transport builds
// get this `fetch` instead: the request written by `node:http(s)` over keep-alive agents, the answer
// handed back as what the SDKs read of a `Response` (`http-response.ts`: its body iterated straight
// from the Node stream, a web stream made only when asked for). What it cannot send as built (a
// `Request` object, a streamed or form body, a redirect to follow, another protocol) goes to the
// global `fetch`, and so does everything once an undici global dispatcher other than an `Agent` (a
// proxy agent, a mock agent) is installed.
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { HttpResponse } from './http-response';

/** The `fetch` signature the SDKs accept (their `ClientOptions.fetch`). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Kept a little under the 5 s Node and most servers keep an idle connection (undici keeps 4 s). */
const IDLE_MS = 4_000;
/** The keep-alive agents every request goes through (exported for tests, not by the package). */
export const AGENTS = {
  'http:': new http.Agent({ keepAlive: true, timeout: IDLE_MS }),
  'https:': new https.Agent({ keepAlive: true, timeout: IDLE_MS }),
} as const;
/** Where undici keeps a dispatcher installed by `setGlobalDispatcher` (a proxy, a mock). */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');
/** What Node's `fetch` asks for, so servers compress the same. */
const ACCEPT_ENCODING = { 'http:': 'gzip, deflate', 'https:': 'br, gzip, deflate' } as const;

/**
 * A `fetch` for the SDK clients the transport builds (see the comment at the top). Errors are
 * Node's `fetch`'s: a connection failure rejects with `TypeError('fetch failed')` and the socket
 * error as its `cause`, a redirect with `redirect: 'error'` likewise; an abort rejects (or errors the
 * body being read) with the signal's reason.
 */
export const httpFetch: FetchLike = (input, init = {}) => {
  const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : undefined;
  const { body } = init;
  if (
    url === undefined ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    init.redirect !== 'error' ||
    !(
      body === undefined ||
      body === null ||
      typeof body === 'string' ||
      body instanceof Uint8Array
    ) ||
    customDispatcher()
  ) {
    return fetch(input, init);
  }
  const protocol = url.protocol;
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const request = (protocol === 'https:' ? https : http).request(
      url,
      {
        method: init.method ?? 'GET',
        headers: headersOf(init.headers, protocol),
        agent: AGENTS[protocol],
      },
      (answer) => {
        signal?.removeEventListener('abort', onAbortBeforeAnswer);
        const status = answer.statusCode ?? 0;
        if (status >= 300 && status < 400 && answer.headers.location !== undefined) {
          answer.destroy();
          reject(new TypeError('fetch failed', { cause: new Error('unexpected redirect') }));
          return;
        }
        const headers = new Headers();
        const raw = answer.rawHeaders;
        for (let index = 0; index + 1 < raw.length; index += 2) {
          headers.append(raw[index] as string, raw[index + 1] as string);
        }
        const empty = status === 204 || status === 205 || status === 304 || init.method === 'HEAD';
        if (empty) answer.resume();
        const stream = empty ? null : decoded(answer);
        if (stream !== null && signal !== undefined) {
          // As with `fetch`: an abort while the body is read errors it with the abort's reason.
          // One its reader let go of is no one's now: it ends by itself or is cut (`HttpBody`).
          const onAbort = () => {
            if (response.body?.letGo === true) return;
            stream.destroy(signal.reason);
            answer.destroy(signal.reason);
          };
          signal.addEventListener('abort', onAbort, { once: true });
          stream.once('close', () => signal.removeEventListener('abort', onAbort));
        }
        const response = new HttpResponse(stream, {
          status,
          statusText: answer.statusMessage ?? '',
          headers,
          url: url.href,
          cut: () => {
            stream?.destroy();
            answer.destroy();
          },
        });
        // What the SDKs read of a `Response` (see `http-response.ts`), not a subclass of it.
        resolve(response as unknown as Response);
      },
    );
    // Not `http.request`'s `signal` option: an abort after the answer came must leave alone a body
    // its reader let go of (below).
    const onAbortBeforeAnswer = () => {
      reject(signal?.reason);
      request.destroy();
    };
    signal?.addEventListener('abort', onAbortBeforeAnswer, { once: true });
    request.once('error', (error) => {
      signal?.removeEventListener('abort', onAbortBeforeAnswer);
      if (signal?.aborted) reject(signal.reason);
      else reject(new TypeError('fetch failed', { cause: error }));
    });
    request.end(body ?? undefined);
  });
};

/**
 * Whether `setGlobalDispatcher` installed something other than a plain agent (Node creates its
 * default `Agent` there on its first `fetch`): a `ProxyAgent`, an `EnvHttpProxyAgent`, a `MockAgent`.
 */
function customDispatcher(): boolean {
  const dispatcher = (
    globalThis as Record<symbol, { constructor?: { name?: string } } | undefined>
  )[GLOBAL_DISPATCHER];
  return dispatcher !== undefined && dispatcher.constructor?.name !== 'Agent';
}

function headersOf(
  init: RequestInit['headers'],
  protocol: 'http:' | 'https:',
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (init !== undefined) {
    const entries =
      init instanceof Headers || Array.isArray(init) ? init : Object.entries(init as object);
    for (const [name, value] of entries as Iterable<[string, string]>) {
      headers[name.toLowerCase()] = String(value);
    }
  }
  headers['accept-encoding'] ??= ACCEPT_ENCODING[protocol];
  return headers;
}

/** The answer's bytes, decompressed as its `content-encoding` says (as `fetch` does). */
function decoded(answer: http.IncomingMessage): Readable {
  const encoding = answer.headers['content-encoding']?.trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  if (decoder === undefined) return answer;
  answer.once('error', (error) => decoder.destroy(error));
  return answer.pipe(decoder);
}
