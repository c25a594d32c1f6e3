import type { ErrorKind } from './error-kind';

/** A model of a provider, reached with one of the provider's auth profiles. */
export interface ModelTarget {
  providerId: string;
  profileId: string;
  model: string;
}

/** A breaker's state: `open` sends nothing, `half-open` lets exactly one probe through. */
export type BreakerState = 'closed' | 'open' | 'half-open';

/** Whether a request may go to a target now. */
export type HealthPermit =
  /** Go. `probe`: this request is the one half-open probe; report its result. */
  | { allowed: true; probe: boolean }
  /** Skip this target without sending it anything; it may be tried again after `waitMs`. */
  | {
      allowed: false;
      reason: 'breaker-open' | 'probe-in-flight' | 'profile-cooling';
      waitMs: number;
    };

/** What a turn tells provider health after an attempt or a decision. */
export type HealthReport =
  /**
   * The target answered. Counts as a success in its model's window (outside a probe); closes a
   * half-open breaker when `probe`.
   */
  | { type: 'success'; target: ModelTarget; probe: boolean }
  /**
   * The target failed with this kind. Health decides what it means: a rate limit cools the
   * profile for this model, auth and billing cool the profile; a model fault (`overloaded`,
   * `server_error`, `connection`, `timeout`, `provider_abort`) counts as a failure in the model's
   * sliding window across sessions, and enough of them — a minimum count that is also a large
   * enough share of the window's outcomes — open the model's breaker; an `overloaded` or
   * `server_error` whose `retryAfterMs` is longer than a turn would wait opens it at once (for at
   * most the breaker's cap); a failed probe reopens it for longer. Kinds that are not the
   * provider's doing (`caller_abort`, `session_takeover`, `coordination`) only hand a probe back.
   * `retryAfterMs`: the provider's `retry-after` (or a longer cooldown it asked for).
   */
  | { type: 'failure'; target: ModelTarget; kind: ErrorKind; probe: boolean; retryAfterMs?: number }
  /**
   * A turn gave up on this model for overload (after its one profile rotation). Not evidence by
   * itself — its failures were reported one by one — it opens the model's breaker only when
   * `retryAfterMs` is longer than a turn would wait, for that long up to the breaker's cap.
   */
  | { type: 'overloaded'; target: ModelTarget; retryAfterMs?: number };

/** A change of provider health, as an event. */
export type HealthEvent =
  | {
      type: 'breaker-change';
      providerId: string;
      model: string;
      from: BreakerState;
      to: BreakerState;
      /** When `open`: until when (clock ms). */
      until?: number;
      /**
       * Why: the kind of the failure that opened it (the one that tipped its window, or carried a
       * long `retry-after`), or the probe's result, or the end of its open time.
       */
      reason: ErrorKind | 'probe-succeeded' | 'probe-failed' | 'cooldown-elapsed';
    }
  | {
      type: 'cooldown-start';
      providerId: string;
      profileId: string;
      /** Absent when the whole profile cools (auth, billing). */
      model?: string;
      kind: ErrorKind;
      until: number;
    };

/** Health as a snapshot, for operators (the console) and tests. */
export interface HealthSnapshot {
  breakers: Array<{
    providerId: string;
    model: string;
    state: BreakerState;
    /** Until when it stays open (clock ms). */
    openUntil?: number;
    /** Consecutive failed probes (the open time doubles with each, up to a cap). */
    failedProbes: number;
  }>;
  cooldowns: Array<{
    providerId: string;
    profileId: string;
    model?: string;
    kind: ErrorKind;
    until: number;
  }>;
}

/** Per-call options of `ProviderHealth.permit` and `report`. */
export interface HealthCallOptions {
  signal?: AbortSignal;
  /**
   * Called with each change this call caused (a breaker change, a cooldown), before the call
   * settles and besides the subscribers: a caller learns its own call's changes even when other
   * calls run meanwhile (a shared store announces them after its round trips).
   */
  onEvent?: (event: HealthEvent) => void;
}

/**
 * Provider health shared by every session (in process by default; in PostgreSQL across
 * gateways): a breaker per provider and model that opens on evidence across sessions (never on
 * one request) and stays open for a capped time, cooldowns per profile. Async so that a shared
 * store can implement it.
 */
export interface ProviderHealth {
  /** Whether a request may go to `target` now. At most one caller at a time gets a probe. */
  permit(target: ModelTarget, options?: HealthCallOptions): Promise<HealthPermit>;
  report(report: HealthReport, options?: HealthCallOptions): Promise<void>;
  snapshot(options?: { signal?: AbortSignal }): Promise<HealthSnapshot>;
  /** Adds a listener for health changes; returns the function that removes it. */
  subscribe(listener: (event: HealthEvent) => void): () => void;
}

/** Time, injectable so that tests run on fake time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason as soon as it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
