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
  return new Watchdog(options);
}

function clear(timer: ReturnType<typeof setTimeout> | undefined): void {
  if (timer !== undefined) clearTimeout(timer);
}

/**
 * A class, not an object literal: on Node 20 a literal with a getter (`timeout`) is made in
 * dictionary mode, 1.6–2.5 µs a call and slower to call into (one per model call, called per chunk).
 */
class Watchdog implements AttemptWatchdog {
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #options: AttemptWatchdogOptions;
  #fired: TransportTimeoutError | undefined;
  // One stall timer per attempt, re-armed (`refresh`) at each wait instead of a new timer per
  // chunk: it may stay armed while no chunk is awaited, and then fires into `waiting === false`.
  #stallTimer: ReturnType<typeof setTimeout> | undefined;
  #waiting = false;
  #firstTokenTimer: ReturnType<typeof setTimeout> | undefined;
  #attemptTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #onCallerAbort = () => this.#controller.abort(this.#options.signal?.reason);

  constructor(options: AttemptWatchdogOptions) {
    this.#options = options;
    this.signal = this.#controller.signal;
    if (options.signal?.aborted) this.#controller.abort(options.signal.reason);
    else options.signal?.addEventListener('abort', this.#onCallerAbort, { once: true });
    const { timeoutMs, firstTokenTimeoutMs } = options;
    if (isPositive(timeoutMs))
      this.#attemptTimer = setTimeout(() => this.#fire('attempt', timeoutMs), timeoutMs);
    if (isPositive(firstTokenTimeoutMs)) {
      this.#firstTokenTimer = setTimeout(
        () => this.#fire('first-token', firstTokenTimeoutMs),
        firstTokenTimeoutMs,
      );
    }
  }

  get timeout(): TransportTimeoutError | undefined {
    return this.#fired;
  }

  #fire(timeoutKind: TimeoutKind, timeoutMs: number): void {
    if (this.#controller.signal.aborted) return;
    this.#fired = new TransportTimeoutError({
      message: `Model call timed out: ${DESCRIPTIONS[timeoutKind]} ${timeoutMs} ms.`,
      timeoutKind,
      timeoutMs,
    });
    this.#controller.abort(this.#fired);
  }

  waitForChunk(): void {
    const { stallTimeoutMs } = this.#options;
    if (!isPositive(stallTimeoutMs)) return;
    this.#waiting = true;
    if (this.#stallTimer === undefined) {
      this.#stallTimer = setTimeout(() => {
        if (this.#waiting) this.#fire('stall', stallTimeoutMs);
      }, stallTimeoutMs);
    } else {
      this.#stallTimer.refresh();
    }
  }

  chunkReceived(): void {
    this.#waiting = false;
  }

  firstEvent(): void {
    clear(this.#firstTokenTimer);
    this.#firstTokenTimer = undefined;
  }

  abort(): void {
    this.#controller.abort();
  }

  dispose(): void {
    clear(this.#stallTimer);
    clear(this.#firstTokenTimer);
    clear(this.#attemptTimer);
    this.#options.signal?.removeEventListener('abort', this.#onCallerAbort);
  }
}
