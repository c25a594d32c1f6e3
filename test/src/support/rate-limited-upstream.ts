/**
 * A provider's own rate limit in front of the mock provider: a loopback proxy that admits requests
 * by a token bucket (capacity `limit`, refilled `limit` per `windowMs`, as providers meter) and
 * answers the rest `429` with `retry-after`, in OpenAI's error shape. Records when each request
 * arrived and which it refused, so a test can measure what reached the provider over any window.
 */
import { forwardTo } from '@keel/testing';

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
  const proxy = await forwardTo(options.target, (incoming, outgoing) => {
    const at = performance.now();
    if (incoming.method !== 'POST') return false;
    if (take(at)) {
      admitted.push(at);
      return false;
    }
    refused.push(at);
    incoming.resume();
    outgoing.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
    outgoing.end(
      JSON.stringify({
        error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' },
      }),
    );
    return true;
  });
  return { baseUrl: proxy.baseUrl, admitted, refused, close: () => proxy.close() };
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
