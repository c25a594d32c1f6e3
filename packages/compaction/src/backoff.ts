export interface BackoffOptions {
  /** First retry's nominal delay; default 500 ms. */
  baseDelayMs?: number;
  /** Cap of the nominal delay; default 8000 ms. */
  maxDelayMs?: number;
  /** Source of jitter in [0, 1); default `Math.random`. */
  random?: () => number;
}

/** Largest `retry-after` honoured, in ms. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Delay before retry number `retry` (1-based): a server's `retryAfterMs` when given (at most 60 s),
 * else exponential from `baseDelayMs`, capped, with equal jitter (between half and all of it).
 */
export function computeBackoffDelay(
  retry: number,
  options: BackoffOptions & { retryAfterMs?: number },
): number {
  if (options.retryAfterMs !== undefined && options.retryAfterMs >= 0) {
    return Math.min(options.retryAfterMs, MAX_RETRY_AFTER_MS);
  }
  const base = options.baseDelayMs ?? 500;
  const cap = options.maxDelayMs ?? 8000;
  const nominal = Math.min(cap, base * 2 ** Math.max(0, retry - 1));
  const random = options.random ?? Math.random;
  return Math.round(nominal / 2 + (nominal / 2) * random());
}
