/**
 * A provider's own rate limit in front of the mock provider: a loopback proxy that admits requests
 * by a token bucket (capacity `limit`, refilled `limit` per `windowMs`, as providers meter) and
 * answers the rest `429` with `retry-after`, in OpenAI's error shape. Records when each request
 * arrived and which it refused, so a test can measure what reached the provider over any window.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RateLimitedUpstream {
  /** The proxy's `/v1` base URL (for an `openai-chat` provider). */
  readonly baseUrl: string;
  /** Arrival times (ms, monotonic) of the requests admitted upstream. */
  readonly admitted: number[];
  /** Arrival times of the requests refused with `429`. */
  readonly refused: number[];
  close(): Promise<void>;
}

export async function startRateLimitedUpstream(options: {
  /** The mock provider's `openaiBaseUrl`. */
  target: string;
  limit: number;
  windowMs: number;
}): Promise<RateLimitedUpstream> {
  const target = new URL(options.target);
  const admitted: number[] = [];
  const refused: number[] = [];
  let tokens = options.limit;
  let refilledAt = performance.now();
  const take = (at: number): boolean => {
    tokens = Math.min(
      options.limit,
      tokens + ((at - refilledAt) * options.limit) / options.windowMs,
    );
    refilledAt = at;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
  const server: Server = createServer((incoming, outgoing) => {
    const at = performance.now();
    const counts = incoming.method === 'POST';
    if (counts && !take(at)) {
      refused.push(at);
      incoming.resume();
      outgoing.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      outgoing.end(
        JSON.stringify({
          error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' },
        }),
      );
      return;
    }
    if (counts) admitted.push(at);
    const forwarded = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: target.host },
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
    baseUrl: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`,
    admitted,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The most arrivals in any span of `windowMs` (each window starting at an arrival). */
export function busiestWindow(arrivals: readonly number[], windowMs: number): number {
  const sorted = [...arrivals].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start += 1) {
    while (end < sorted.length && (sorted[end] as number) < (sorted[start] as number) + windowMs) {
      end += 1;
    }
    most = Math.max(most, end - start);
  }
  return most;
}
