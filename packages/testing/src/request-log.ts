import type { RecordedRequest } from './mock-provider-types';

/** The provider's record of requests, with event-driven waits on its length. */
export interface RequestLog {
  /** Every request received, in order (the array `MockProvider.requests` exposes). */
  readonly requests: RecordedRequest[];
  push(record: RecordedRequest): void;
  /** Resolves once `count` requests are recorded; rejects when `signal` aborts first. */
  waitFor(count: number, signal?: AbortSignal): Promise<readonly RecordedRequest[]>;
  clear(): void;
}

interface Waiter {
  count: number;
  resolve: () => void;
}

export function createRequestLog(): RequestLog {
  const requests: RecordedRequest[] = [];
  const waiters = new Set<Waiter>();
  return {
    requests,
    push(record) {
      requests.push(record);
      for (const waiter of waiters) {
        if (requests.length >= waiter.count) waiter.resolve();
      }
    },
    waitFor(count, signal) {
      if (!Number.isInteger(count) || count < 0) {
        return Promise.reject(new RangeError(`count must be an integer >= 0, got ${count}`));
      }
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (requests.length >= count) return Promise.resolve(requests);
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          waiters.delete(waiter);
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          count,
          resolve: () => {
            waiters.delete(waiter);
            signal?.removeEventListener('abort', onAbort);
            resolve(requests);
          },
        };
        waiters.add(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    clear() {
      requests.length = 0;
    },
  };
}
