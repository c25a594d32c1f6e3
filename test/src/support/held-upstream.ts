/**
 * A loopback proxy in front of a provider that holds chosen requests until the test lets them go:
 * a model call that stays in flight exactly as long as the test needs (no timing guess). Every
 * other request is forwarded at once, as it came.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HeldUpstream {
  /** The proxy's base URL, with the target's path. */
  readonly baseUrl: string;
  /** Resolves once the `count`-th request (from 1) has arrived. */
  arrived(count: number): Promise<void>;
  /** Lets the held requests (and any later held one) go on to the provider. */
  release(): void;
  close(): Promise<void>;
}

/** Starts the proxy; `held(n)` says whether the n-th request (from 1) waits for `release()`. */
export async function holdUpstream(
  target: string,
  held: (count: number) => boolean,
): Promise<HeldUpstream> {
  const url = new URL(target);
  let count = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
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
  const server = createServer((incoming, outgoing) => {
    count += 1;
    const index = count;
    for (const waiter of waiters.filter((candidate) => candidate.count <= index)) {
      waiter.resolve();
    }
    if (held(index)) void released.then(() => forward(incoming, outgoing));
    else forward(incoming, outgoing);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${url.pathname.replace(/\/$/, '')}`,
    arrived: (wanted) =>
      wanted <= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count: wanted, resolve })),
    release: () => release(),
    close: () =>
      new Promise<void>((resolve) => {
        release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
