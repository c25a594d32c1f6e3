/**
 * A loopback proxy in front of a provider (the mock provider, usually): every request is
 * forwarded as it came, unless `onRequest` answered it first. Tests and benchmarks put one between
 * a gateway and its provider to see what reached the provider (arrival times), or to play the
 * provider's own limits (answer `429` over a rate) without changing the provider.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ForwardingProxy {
  /** The proxy's base URL, with the target's path (`http://127.0.0.1:<port>/v1`). */
  readonly baseUrl: string;
  close(): Promise<void>;
}

/** The request as the hook sees it (a `node:http` `IncomingMessage`, typed without Node's types). */
export interface ForwardedRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Drops the request's body (call it before answering a request that is not forwarded). */
  resume(): unknown;
}

/** The answer as the hook may write it (a `node:http` `ServerResponse`, typed without Node's types). */
export interface ForwardedAnswer {
  writeHead(status: number, headers?: Record<string, string>): unknown;
  end(body?: string): unknown;
}

/**
 * Called first for every request. Return `true` when it answered the request itself (it is not
 * forwarded); a promise to forward the request once it settles (a request held until the test lets
 * it go); anything else forwards it at once. Its types name no Node module, so a consumer without
 * Node's types still compiles against the package.
 */
export type ForwardRequestHook = (
  incoming: ForwardedRequest,
  outgoing: ForwardedAnswer,
) => boolean | undefined | PromiseLike<unknown>;

/** Starts a proxy on `127.0.0.1` (an ephemeral port) forwarding to `target` (a base URL). */
export async function forwardTo(
  target: string,
  onRequest?: ForwardRequestHook,
): Promise<ForwardingProxy> {
  const url = new URL(target);
  const forward = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const forwarded = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: url.host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  };
  const server: Server = createServer((incoming, outgoing) => {
    const answered = onRequest?.(incoming, outgoing);
    if (answered === true) return;
    if (typeof answered === 'object' && answered !== null && 'then' in answered) {
      const later = () => forward(incoming, outgoing);
      void Promise.resolve(answered).then(later, later);
      return;
    }
    forward(incoming, outgoing);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${url.pathname.replace(/\/$/, '')}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
