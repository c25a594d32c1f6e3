/**
 * A loopback proxy in front of a provider that can hold the next request until the test lets it
 * go: a model call that stays in flight exactly as long as the test needs (no timing guess). Every
 * other request is forwarded at once, as it came.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** One held request: `arrived` once it came, forwarded once `release()` is called. */
export interface HeldRequest {
  readonly arrived: Promise<void>;
  release(): void;
}

export interface HeldUpstream {
  /** The proxy's base URL, with the target's path. */
  readonly baseUrl: string;
  /** Holds the next request that arrives. */
  holdNext(): HeldRequest;
  close(): Promise<void>;
}

/** Starts the proxy in front of `target` (a base URL). */
export async function holdUpstream(target: string): Promise<HeldUpstream> {
  const url = new URL(target);
  const holds: Array<{ came: () => void; released: Promise<void> }> = [];
  const releases = new Set<() => void>();
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
    const hold = holds.shift();
    if (hold === undefined) return forward(incoming, outgoing);
    hold.came();
    void hold.released.then(() => forward(incoming, outgoing));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${url.pathname.replace(/\/$/, '')}`,
    holdNext() {
      let came!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>((resolve) => {
        came = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      releases.add(release);
      holds.push({ came, released });
      return { arrived, release };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const release of releases) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
