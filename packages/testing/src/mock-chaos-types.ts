/**
 * Public types of the mock provider's seeded random fault mode (`MockProviderOptions.chaos`).
 */
import type { MockBehavior, MockMatch } from './mock-provider-types';

/**
 * The faults the chaos mode injects, each answered in the request's own wire format (Anthropic
 * Messages, OpenAI Chat Completions, OpenAI Responses) by the same machinery as the scripted
 * behaviours:
 * - `reset-before-headers`: the socket is destroyed before any header (a connection reset);
 * - `server-error`: a 500, 502 or 503 without overload wording;
 * - `overloaded`: a burst of `overloadBurst` consecutive overloads (Anthropic 529
 *   `overloaded_error`; OpenAI 503 "That model is currently overloaded…");
 * - `rate-limited`: a 429 with `retry-after: <retryAfterSeconds>`;
 * - `reset-after-chunks`: 1–3 text deltas, then a socket reset (a mid-stream cut; non-streaming:
 *   half the body, then the reset);
 * - `truncated-stream`: 1–3 text deltas, then a clean end without the terminal event
 *   (non-streaming: half the body);
 * - `stream-error`: 0–2 text deltas, then the provider's in-stream error event (Anthropic
 *   `overloaded_error` or `api_error`; OpenAI `server_error`); non-streaming: the matching HTTP
 *   error;
 * - `hang`: nothing at all, until the client aborts or the provider closes;
 * - `stall`: headers and 0–2 text deltas, then silence, until the client aborts or the provider
 *   closes.
 */
export type MockChaosFault =
  | 'reset-before-headers'
  | 'server-error'
  | 'overloaded'
  | 'rate-limited'
  | 'reset-after-chunks'
  | 'truncated-stream'
  | 'stream-error'
  | 'hang'
  | 'stall';

/** Seeded random faults for the requests no scripted entry answers. */
export interface MockChaosOptions {
  /**
   * Same seed and same sequence of chaos-eligible requests → the same faults, every run. The
   * n-th eligible request draws from SHA-256(seed, n), so a number and its decimal string are
   * the same seed.
   */
  seed: number | string;
  /**
   * Probability of each fault per eligible request, each in [0, 1], summing to at most 1; the
   * rest get the normal answer. Given, it replaces the defaults entirely (missing faults: 0).
   * For `overloaded` it is the probability that a burst starts.
   */
  rates?: Partial<Record<MockChaosFault, number>>;
  /**
   * Only requests fitting this match (or one of these) are eligible; the rest always get the
   * normal answer — e.g. keep a fallback model or a spare API key healthy.
   */
  match?: MockMatch | readonly MockMatch[];
  /** Consecutive eligible requests an `overloaded` burst answers with an overload; default 3. */
  overloadBurst?: number;
  /** The `retry-after` (whole seconds) of a `rate-limited` fault; default 1. */
  retryAfterSeconds?: number;
}

/** What the chaos mode injected into one request (`RecordedRequest.chaos`). */
export interface MockChaosInjection {
  fault: MockChaosFault;
  /** The request's place (0-based) in the sequence of chaos-eligible requests. */
  index: number;
  /** The behaviour that answered it. */
  behavior: MockBehavior;
}

/** What the chaos mode did so far (`MockProvider.chaosStats()`). */
export interface MockChaosStats {
  /** Eligible requests: in scope and answered by no scripted entry. */
  requests: number;
  /** Eligible requests that got the normal answer. */
  passed: number;
  /** Faults injected, per kind; each request of an overload burst counts once. */
  faults: Record<MockChaosFault, number>;
}
