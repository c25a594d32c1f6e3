/**
 * Deadlines of one attempt, so that a silent route falls over instead of hanging the call: no
 * first output part within `firstPartMs` (for `doGenerate`, no answer), or, once parts flow, no
 * next part within `stallMs` while the caller is waiting for one. The attempt gets its own signal,
 * aborted by the caller's or by a deadline; a deadline's abort is raised as an
 * `AttemptTimeoutError` (kind `timeout`), never as the caller's stop.
 */
import { AttemptTimeoutError } from './attempt-timeout-error';
import type { KeelTimeoutOptions } from './keel-model-options';

export interface AttemptWatch {
  readonly signal: AbortSignal;
  /** The first output part arrived: the first-part deadline is met. */
  firstPart(): void;
  /** Waits for the next part under the stall deadline (after the first part). */
  reading<T>(read: Promise<T>): Promise<T>;
  /** The error a deadline raised, else `error` itself. */
  explain(error: unknown): unknown;
  stop(): void;
}

export function watchAttempt(
  callerSignal: AbortSignal | undefined,
  timeouts: KeelTimeoutOptions,
): AttemptWatch {
  const controller = new AbortController();
  let expired: AttemptTimeoutError | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expire = (message: string) => {
    expired = new AttemptTimeoutError({ message });
    controller.abort(expired);
  };
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) controller.abort(callerSignal.reason);
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  const clear = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const { firstPartMs, stallMs } = timeouts;
  if (firstPartMs !== undefined) {
    timer = setTimeout(() => expire(`No output within ${firstPartMs} ms.`), firstPartMs);
  }

  return {
    signal: controller.signal,
    firstPart: clear,
    async reading(read) {
      if (stallMs === undefined || expired !== undefined) return read;
      timer = setTimeout(() => expire(`The stream was silent for ${stallMs} ms.`), stallMs);
      try {
        return await read;
      } finally {
        clear();
      }
    },
    explain(error) {
      return expired ?? error;
    },
    stop() {
      clear();
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}
