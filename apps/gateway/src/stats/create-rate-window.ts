import type { ErrorKind, TurnEvent } from '@keel/spec';

/** Counts of one time bucket. */
export interface RateCounts {
  /** Model requests sent (attempts started). */
  requests: number;
  /**
   * Attempts that failed, whatever the kind, and turns that failed without a request (every
   * attempt skipped: every candidate cooling). Per provider, only the failed attempts.
   */
  errors: number;
  /** `fallback_model` decisions. */
  fallbacks: number;
}

export interface RateBucket extends RateCounts {
  /** Clock ms of the bucket's start. */
  start: number;
}

export interface ProviderRates extends RateCounts {
  providerId: string;
  /** Failed attempts by kind. */
  errorKinds: Partial<Record<ErrorKind, number>>;
}

/** What `GET /v1/stats/rates` answers. */
export interface RatesSnapshot {
  bucketMs: number;
  /** Clock ms: the window is `[from, to)`. */
  from: number;
  to: number;
  /** Every bucket of the window, oldest first, empty ones included. */
  buckets: RateBucket[];
  /** Totals over the window, per provider. */
  providers: ProviderRates[];
}

export interface RateWindowOptions {
  /** Default 10 000 ms. */
  bucketMs?: number;
  /** How far back counts are kept; default 60 minutes. */
  keepMs?: number;
}

/** Request, error and fallback counts in time buckets, from turn events (for the console's charts). */
export interface RateWindow {
  observe(event: TurnEvent): void;
  read(options: { sinceMs: number; now: number }): RatesSnapshot;
}

interface Bucket {
  total: RateCounts;
  byProvider: Map<string, ProviderRates>;
}

export function createRateWindow(options: RateWindowOptions = {}): RateWindow {
  const bucketMs = options.bucketMs ?? 10_000;
  const keepMs = options.keepMs ?? 3_600_000;
  const buckets = new Map<number, Bucket>();

  function bucketAt(at: number): Bucket {
    const start = Math.floor(at / bucketMs) * bucketMs;
    let bucket = buckets.get(start);
    if (bucket === undefined) {
      bucket = { total: zero(), byProvider: new Map() };
      buckets.set(start, bucket);
      for (const key of buckets.keys()) if (key < start - keepMs) buckets.delete(key);
    }
    return bucket;
  }

  function count(at: number, providerId: string, field: keyof RateCounts, kind?: ErrorKind): void {
    const bucket = bucketAt(at);
    bucket.total[field] += 1;
    let provider = bucket.byProvider.get(providerId);
    if (provider === undefined) {
      provider = { providerId, ...zero(), errorKinds: {} };
      bucket.byProvider.set(providerId, provider);
    }
    provider[field] += 1;
    if (kind !== undefined) provider.errorKinds[kind] = (provider.errorKinds[kind] ?? 0) + 1;
  }

  return {
    observe(event) {
      switch (event.type) {
        case 'attempt-start':
          count(event.at, event.target.providerId, 'requests');
          return;
        case 'attempt-error':
          count(event.at, event.target.providerId, 'errors', event.kind);
          return;
        case 'decision':
          if (event.label === 'fallback_model')
            count(event.at, event.from?.providerId ?? 'unknown', 'fallbacks');
          return;
        case 'turn-end': {
          // No attempt failed, yet the turn did: every candidate was skipped (breaker, cooldown).
          const { kind, attempts } = event.outcome;
          if (kind === 'error' && attempts.length > 0 && attempts.every((a) => !a.requestSent))
            bucketAt(event.at).total.errors += 1;
          return;
        }
        default:
          return;
      }
    },
    read({ sinceMs, now }) {
      const last = Math.floor(now / bucketMs) * bucketMs;
      const first = last - Math.max(0, Math.ceil(sinceMs / bucketMs) - 1) * bucketMs;
      const list: RateBucket[] = [];
      const providers = new Map<string, ProviderRates>();
      for (let start = first; start <= last; start += bucketMs) {
        const bucket = buckets.get(start);
        list.push({ start, ...(bucket?.total ?? zero()) });
        for (const [id, rates] of bucket?.byProvider ?? []) {
          const sum = providers.get(id) ?? { providerId: id, ...zero(), errorKinds: {} };
          sum.requests += rates.requests;
          sum.errors += rates.errors;
          sum.fallbacks += rates.fallbacks;
          for (const [kind, n] of Object.entries(rates.errorKinds) as Array<[ErrorKind, number]>)
            sum.errorKinds[kind] = (sum.errorKinds[kind] ?? 0) + n;
          providers.set(id, sum);
        }
      }
      return {
        bucketMs,
        from: first,
        to: last + bucketMs,
        buckets: list,
        providers: [...providers.values()].sort((a, b) => a.providerId.localeCompare(b.providerId)),
      };
    },
  };
}

function zero(): RateCounts {
  return { requests: 0, errors: 0, fallbacks: 0 };
}
