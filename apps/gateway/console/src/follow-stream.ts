import { ConsoleApiError } from './console-api-error';
import type { ApiClient } from './create-api-client';

export type StreamStatus = 'connecting' | 'live' | 'reconnecting' | 'stopped';

export interface FollowOptions {
  signal: AbortSignal;
  /** Each time the stream (re)opens; the server then sends its recent events again. */
  onOpen?(): void;
  onEvent(name: string, data: unknown): void;
  onStatus?(status: StreamStatus): void;
}

/**
 * Follows a server-sent event stream for as long as `signal` is not aborted: reconnects after
 * the stream ends or fails (1 s, growing to 10 s), and stops for good on a 4xx answer.
 */
export async function followStream(
  client: ApiClient,
  path: string,
  options: FollowOptions,
): Promise<void> {
  const { signal } = options;
  let delayMs = 1000;
  options.onStatus?.('connecting');
  while (!signal.aborted) {
    try {
      await client.stream(path, {
        signal,
        onOpen() {
          delayMs = 1000;
          options.onStatus?.('live');
          options.onOpen?.();
        },
        onEvent: options.onEvent,
      });
    } catch (error) {
      if (signal.aborted) break;
      if (ConsoleApiError.isInstance(error) && error.status < 500) {
        options.onStatus?.('stopped');
        return;
      }
    }
    if (signal.aborted) break;
    options.onStatus?.('reconnecting');
    await sleep(delayMs, signal);
    delayMs = Math.min(delayMs * 2, 10_000);
  }
  options.onStatus?.('stopped');
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
