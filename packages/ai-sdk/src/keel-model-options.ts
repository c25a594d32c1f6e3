/**
 * The options of `createKeelModel` and the events it reports: one file, so the public shape of
 * the package reads in one place.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ErrorKind, ModelTarget, ProviderHealth } from '@keel/spec';

/** How a stream behaves when its attempt fails after its first part reached the caller. */
export type StreamMode = 'live' | 'buffered';

export interface KeelRetryOptions {
  /** `retry_same` per target for fast transient failures (reset, 5xx, provider abort); default 1. */
  maxRetries?: number;
  /** The longest single wait (backoff, `retry-after`, cooldown) a call sits through; default 10 000 ms. */
  maxWaitMs?: number;
  /** Waits for a cooling candidate per call; default 2. */
  maxWaits?: number;
  /** First backoff delay before jitter; default 500 ms. */
  baseDelayMs?: number;
  /** Largest backoff delay before jitter; default 8 000 ms. */
  maxDelayMs?: number;
  /** How long a rate-limited profile cools when the provider gave no `retry-after`; default 30 000 ms. */
  rateLimitCooldownMs?: number;
}

export interface KeelTimeoutOptions {
  /** No first output part (text, reasoning, a tool call) within this long; for `doGenerate`, no answer. */
  firstPartMs?: number;
  /** Once parts flow, no next part within this long while the caller is waiting for one. */
  stallMs?: number;
}

export interface KeelModelOptions {
  /** The models to try, in order: any AI SDK language models (specification `v4`). */
  candidates: readonly LanguageModelV4[];
  /**
   * More API keys for candidates: profile id → models built with that key. Each model joins the
   * candidate with the same provider and model id, after the candidate itself (profile
   * `primary`). Rotation goes through them in the order given.
   */
  profiles?: Readonly<Record<string, readonly LanguageModelV4[]>>;
  /** Breakers and cooldowns; default one in-memory `createProviderHealth()` per model made. */
  health?: ProviderHealth;
  retry?: KeelRetryOptions;
  /** Default `live`. */
  streamMode?: StreamMode;
  /** Deadlines per attempt, after which it counts as a `timeout` and the call falls over; default none. */
  timeouts?: KeelTimeoutOptions;
  /** Observes every attempt and decision; a throwing observer is ignored. */
  onEvent?: (event: KeelModelEvent) => void;
  /** Jitter source for backoff; default `Math.random`. */
  random?: () => number;
}

/** The labels a call's decisions carry: each names the move truly taken. */
export type KeelDecisionLabel =
  | 'retry_same'
  | 'rotate_profile'
  | 'fallback_model'
  | 'wait'
  | 'final';

/** What `onEvent` sees, in order, for every `doGenerate` / `doStream` call. */
export type KeelModelEvent =
  | { type: 'attempt-start'; attempt: number; target: ModelTarget; probe: boolean }
  | {
      type: 'attempt-error';
      attempt: number;
      target: ModelTarget;
      kind: ErrorKind;
      status?: number;
      retryAfterMs?: number;
      /** Log-safe; never show it to end users. */
      message?: string;
      /** The attempt had already streamed parts to the caller (live mode). */
      afterFirstPart: boolean;
    }
  | { type: 'attempt-end'; attempt: number; target: ModelTarget }
  | {
      type: 'decision';
      label: KeelDecisionLabel;
      reason: ErrorKind | 'breaker-open' | 'probe-in-flight' | 'profile-cooling';
      from?: ModelTarget;
      to?: ModelTarget;
      delayMs?: number;
    };
