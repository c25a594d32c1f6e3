import type { MockApi, MockBehavior, MockMatch, MockScriptEntry } from './mock-provider-types';

/** The request fields a queue entry's `match` is checked against. */
export interface MockQueueRequest {
  api: MockApi;
  model: string | undefined;
  apiKey: string | undefined;
  /** Whether the request's last message is the assistant's; absent counts as `false`. */
  prefill?: boolean;
}

/** The behaviour queue: first matching entry wins; unmatched entries stay queued. */
export interface MockQueue {
  add(entries: ReadonlyArray<MockScriptEntry | MockBehavior>): void;
  /** Take one use of the first entry matching the request, or `undefined`. */
  take(request: MockQueueRequest): MockBehavior | undefined;
  size(): number;
  clear(): void;
}

interface QueuedEntry {
  entry: MockScriptEntry;
  remaining: number;
  /** Clock ms after which the entry is used up (`forMs`). */
  expiresAt: number;
}

/** Whether a value is a `MockScriptEntry` (has `behavior`) rather than a bare behaviour. */
export function isScriptEntry(value: MockScriptEntry | MockBehavior): value is MockScriptEntry {
  return 'behavior' in value && typeof value.behavior === 'object' && value.behavior !== null;
}

/** Whether a request fits a match (no match: every request fits). */
export function matchesRequest(match: MockMatch | undefined, request: MockQueueRequest): boolean {
  if (match === undefined) return true;
  if (match.api !== undefined && match.api !== request.api) return false;
  if (match.apiKey !== undefined && match.apiKey !== request.apiKey) return false;
  if (match.prefill !== undefined && match.prefill !== (request.prefill ?? false)) return false;
  if (match.model !== undefined) {
    if (request.model === undefined) return false;
    if (typeof match.model === 'string') return match.model === request.model;
    match.model.lastIndex = 0;
    return match.model.test(request.model);
  }
  return true;
}

/** `now` is the clock `forMs` is measured on (default `Date.now`). */
export function createMockQueue(now: () => number = () => Date.now()): MockQueue {
  let entries: QueuedEntry[] = [];
  const dropExpired = () => {
    const at = now();
    if (entries.some((queued) => queued.expiresAt < at)) {
      entries = entries.filter((queued) => queued.expiresAt >= at);
    }
  };
  return {
    add(added) {
      for (const value of added) {
        const entry = isScriptEntry(value) ? value : { behavior: value };
        const times = entry.times ?? 1;
        if (!(times > 0)) throw new RangeError(`times must be a positive number, got ${times}`);
        const forMs = entry.forMs ?? Number.POSITIVE_INFINITY;
        if (!(forMs >= 0)) throw new RangeError(`forMs must not be negative, got ${forMs}`);
        entries.push({ entry, remaining: times, expiresAt: now() + forMs });
      }
    },
    take(request) {
      dropExpired();
      const index = entries.findIndex((queued) => matchesRequest(queued.entry.match, request));
      const queued = entries[index];
      if (queued === undefined) return undefined;
      queued.remaining -= 1;
      if (queued.remaining <= 0) entries.splice(index, 1);
      return queued.entry.behavior;
    },
    size() {
      dropExpired();
      return entries.length;
    },
    clear() {
      entries = [];
    },
  };
}
