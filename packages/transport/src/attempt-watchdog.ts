import { type TimeoutKind, TransportTimeoutError } from './transport-error';

export interface AttemptWatchdogOptions {
  /** The caller's signal; its abort aborts the attempt too. */
  signal?: AbortSignal | undefined;
  /** Whole attempt, from the request until the stream's end. */
  timeoutMs?: number | undefined;
  /** From the request until the first transport event. */
  firstTokenTimeoutMs?: number | undefined;
  /** Longest silence while waiting for the next chunk, once the response has started. */
  stallTimeoutMs?: number | undefined;
}

/** The clocks of one model call, and the signal they abort. */
export interface AttemptWatchdog {
  /** Aborted by the caller's signal, by a clock running out, or by `abort()`. */
  readonly signal: AbortSignal;
  /** The timeout that fired, if one did. */
  readonly timeout: TransportTimeoutError | undefined;
  /** Waiting for the next chunk: the stall clock runs. */
  waitForChunk(): void;
  /** A chunk arrived: the stall clock stops. */
  chunkReceived(): void;
  /** The first transport event was produced: the first-token clock stops. */
  firstEvent(): void;
  /** Abort the attempt (e.g. the consumer stopped early). */
  abort(): void;
  /** Stop every clock and detach from the caller's signal. */
  dispose(): void;
}

const DESCRIPTIONS: Record<TimeoutKind, string> = {
  attempt: 'the attempt took longer than',
  'first-token': 'no first token within',
  stall: 'the stream stalled (no chunk) for',
};

function isPositive(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value) && value > 0;
}

export function createAttemptWatchdog(options: AttemptWatchdogOptions): AttemptWatchdog {
  const controller = new AbortController();
  let fired: TransportTimeoutError | undefined;
  // One stall timer per attempt, re-armed (`refresh`) at each wait instead of a new timer per
  // chunk: it may stay armed while no chunk is awaited, and then fires into `waiting === false`.
  let stallTimer: ReturnType<typeof setTimeout> | undefined;
  let waiting = false;
  let firstTokenTimer: ReturnType<typeof setTimeout> | undefined;
  let attemptTimer: ReturnType<typeof setTimeout> | undefined;

  const fire = (timeoutKind: TimeoutKind, timeoutMs: number) => {
    if (controller.signal.aborted) return;
    fired = new TransportTimeoutError({
      message: `Model call timed out: ${DESCRIPTIONS[timeoutKind]} ${timeoutMs} ms.`,
      timeoutKind,
      timeoutMs,
    });
    controller.abort(fired);
  };

  const onCallerAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) controller.abort(options.signal.reason);
  else options.signal?.addEventListener('abort', onCallerAbort, { once: true });

  const { timeoutMs, firstTokenTimeoutMs, stallTimeoutMs } = options;
  if (isPositive(timeoutMs)) attemptTimer = setTimeout(() => fire('attempt', timeoutMs), timeoutMs);
  if (isPositive(firstTokenTimeoutMs)) {
    firstTokenTimer = setTimeout(
      () => fire('first-token', firstTokenTimeoutMs),
      firstTokenTimeoutMs,
    );
  }

  const clear = (timer: ReturnType<typeof setTimeout> | undefined) => {
    if (timer !== undefined) clearTimeout(timer);
  };

  return {
    signal: controller.signal,
    get timeout() {
      return fired;
    },
    waitForChunk() {
      if (!isPositive(stallTimeoutMs)) return;
      waiting = true;
      if (stallTimer === undefined) {
        stallTimer = setTimeout(() => {
          if (waiting) fire('stall', stallTimeoutMs);
        }, stallTimeoutMs);
      } else {
        stallTimer.refresh();
      }
    },
    chunkReceived() {
      waiting = false;
    },
    firstEvent() {
      clear(firstTokenTimer);
      firstTokenTimer = undefined;
    },
    abort() {
      controller.abort();
    },
    dispose() {
      clear(stallTimer);
      clear(firstTokenTimer);
      clear(attemptTimer);
      options.signal?.removeEventListener('abort', onCallerAbort);
    },
  };
}
