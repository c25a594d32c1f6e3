/**
 * A loopback proxy in front of the mock provider that records when each model request arrived
 * (`performance.now()`), so a benchmark measures what reached the provider, not what a gateway
 * decided to send.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingUpstream {
  /** The proxy's `/v1` base URL (for an `openai-chat` provider). */
  readonly baseUrl: string;
  /** Arrival times (ms, monotonic) of the model requests (`POST`s). */
  readonly arrivals: number[];
  close(): Promise<void>;
}

/** `target`: the mock provider's `openaiBaseUrl`. */
export async function startRecordingUpstream(target: string): Promise<RecordingUpstream> {
  const url = new URL(target);
  const arrivals: number[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    if (incoming.method === 'POST') arrivals.push(performance.now());
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
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${url.pathname.replace(/\/$/, '')}`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
