/** Jittered exponential backoff settings for `retry_same`. */
export interface BackoffOptions {
  /** First delay before jitter; default 500 ms. */
  baseDelayMs?: number;
  /** Largest delay before jitter; default 8000 ms. */
  maxDelayMs?: number;
}

/**
 * The wait before retry number `retry` (1-based): the provider's `retry-after` when it gave one,
 * else `base · 2^(retry−1)` capped at `max`, with "equal jitter" (between half and all of it) so
 * that many sessions retrying at once do not arrive together.
 */
export function backoffDelay(
  retry: number,
  retryAfterMs: number | undefined,
  options: BackoffOptions,
  random: () => number,
): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const base = options.baseDelayMs ?? 500;
  const max = options.maxDelayMs ?? 8000;
  const exponential = Math.min(max, base * 2 ** Math.max(0, retry - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}
