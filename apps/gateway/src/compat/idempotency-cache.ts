/**
 * `Idempotency-Key` for the compatible endpoints: a repeat within the time to live gets the first
 * request's answer without a second model call, and a repeat that arrives while the first is
 * still running waits for it. Only answers worth repeating are kept (`keep`): a failure is not,
 * so a client's retry after one runs again. Bounded: the oldest entries go first past `maxEntries`.
 */
export interface IdempotencyCache<T> {
  /** Runs `work` for a new key, or joins the answer of the key's first request. */
  run(key: string, work: () => Promise<T>): { repeated: boolean; result: Promise<T> };
  readonly size: number;
}

export interface IdempotencyCacheOptions<T> {
  ttlMs: number;
  /** Whether an answer is kept for repeats; default every answer. */
  keep?: (value: T) => boolean;
  maxEntries?: number;
  now?: () => number;
}

export function createIdempotencyCache<T>(
  options: IdempotencyCacheOptions<T>,
): IdempotencyCache<T> {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { result: Promise<T>; expires: number }>();

  function sweep(at: number): void {
    for (const [key, entry] of entries) {
      if (entry.expires > at && entries.size < maxEntries) break;
      entries.delete(key);
    }
  }

  return {
    run(key, work) {
      const at = now();
      sweep(at);
      const known = entries.get(key);
      if (known !== undefined && known.expires > at)
        return { repeated: true, result: known.result };
      const result = work();
      const entry = { result, expires: at + options.ttlMs };
      entries.set(key, entry);
      result.then(
        (value) => {
          if (options.keep !== undefined && !options.keep(value) && entries.get(key) === entry)
            entries.delete(key);
        },
        () => {
          if (entries.get(key) === entry) entries.delete(key);
        },
      );
      return { repeated: false, result };
    },
    get size() {
      return entries.size;
    },
  };
}
