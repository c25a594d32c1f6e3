/**
 * The rules of provider health, as pure steps over plain state: the one copy that the in-process
 * health (`createProviderHealth`) and stores that keep health elsewhere (PostgreSQL) both apply.
 * Exported for those who implement the `ProviderHealth` port on other storage.
 */
import type { BreakerState, ErrorKind, HealthEvent, HealthReport, ModelTarget } from '@keel/spec';
import { HealthConfigError } from './health-config-error';

/** What a provider health can be told; every field has a default. */
export interface HealthRuleOptions {
  /** How far back a model's request outcomes count, across sessions; default 30 000 ms. */
  windowMs?: number;
  /** Failures in the window that may open a breaker (never fewer); default 3. */
  minFailures?: number;
  /** …when they are at least this share of the window's outcomes, in (0, 1]; default 0.5. */
  failureRatio?: number;
  /**
   * A model fault (`overloaded`, `server_error`) whose `retry-after` is longer than this opens the
   * breaker at once; default 10 000 ms (the gateway passes its `retry.maxWaitMs`).
   */
  longRetryAfterMs?: number;
  /** How long a breaker stays open the first time; default 10 000 ms. */
  breakerCooldownMs?: number;
  /**
   * The longest a breaker stays open, whatever the `retry-after` or the doubling after failed
   * probes; default 30 000 ms: a model that heals gets traffic back within it.
   */
  maxBreakerCooldownMs?: number;
  /** How long a rate-limited profile cools for a model when no `retry-after` came; default 30 000 ms. */
  rateLimitCooldownMs?: number;
  /** How long a profile cools after an auth or billing failure; default 900 000 ms. */
  authCooldownMs?: number;
  /** A probe not reported within this time is handed to the next caller; default 60 000 ms. */
  probeTimeoutMs?: number;
}

/** The options with every default applied. */
export type HealthRules = Required<HealthRuleOptions>;

/** How many time slices a window is kept in: its state stays this small however busy the model. */
export const WINDOW_SLICES = 10;

/** Options of earlier releases, refused by name so that a stale config fails loudly. */
const REMOVED: Readonly<Record<string, string>> = {
  burstThreshold: 'minFailures and failureRatio',
  burstWindowMs: 'windowMs',
};

/**
 * Applies the defaults and refuses options that cannot work, naming the option: durations are
 * finite and not negative (`windowMs` and `probeTimeoutMs` above zero), `minFailures` a whole
 * number from 1, `failureRatio` in (0, 1].
 */
export function resolveHealthRules(options: HealthRuleOptions = {}): HealthRules {
  for (const [name, instead] of Object.entries(REMOVED)) {
    if (name in options) {
      throw new HealthConfigError({
        message: `${name} is no longer a health option: breakers open on ${instead}`,
        path: name,
      });
    }
  }
  const rules: HealthRules = {
    windowMs: duration(options, 'windowMs', 30_000, true),
    minFailures: options.minFailures ?? 3,
    failureRatio: options.failureRatio ?? 0.5,
    longRetryAfterMs: duration(options, 'longRetryAfterMs', 10_000),
    breakerCooldownMs: duration(options, 'breakerCooldownMs', 10_000),
    maxBreakerCooldownMs: duration(options, 'maxBreakerCooldownMs', 30_000),
    rateLimitCooldownMs: duration(options, 'rateLimitCooldownMs', 30_000),
    authCooldownMs: duration(options, 'authCooldownMs', 900_000),
    probeTimeoutMs: duration(options, 'probeTimeoutMs', 60_000, true),
  };
  if (!Number.isInteger(rules.minFailures) || rules.minFailures < 1) {
    throw invalid('minFailures', 'a whole number from 1', rules.minFailures);
  }
  const ratio = rules.failureRatio;
  if (typeof ratio !== 'number' || !(ratio > 0 && ratio <= 1)) {
    throw invalid('failureRatio', 'a number above 0 and at most 1', ratio);
  }
  return rules;
}

type DurationName = Exclude<keyof HealthRuleOptions, 'minFailures' | 'failureRatio'>;

function duration(
  options: HealthRuleOptions,
  name: DurationName,
  fallback: number,
  positive = false,
) {
  const value = options[name];
  if (value === undefined) return fallback;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < 0 ||
    (positive && value === 0)
  ) {
    throw invalid(name, `a finite duration ${positive ? 'above 0 ms' : 'of 0 ms or more'}`, value);
  }
  return value;
}

function invalid(name: string, what: string, value: unknown): HealthConfigError {
  return new HealthConfigError({
    message: `${name} must be ${what}, not ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
    path: name,
  });
}

/** One time slice of a breaker's window: the model's outcomes that started in it. */
export interface WindowSlice {
  /** Clock ms, a multiple of `windowSliceMs(rules)`. */
  start: number;
  failures: number;
  successes: number;
}

/** One model's breaker, times in clock milliseconds. */
export interface BreakerRow {
  state: BreakerState;
  openUntil: number;
  failedProbes: number;
  /** Until when the half-open probe handed out is waited for (0: none handed out). */
  probeUntil: number;
  /** The outcomes counted while closed, oldest slice first; at most `WINDOW_SLICES` live slices. */
  window: WindowSlice[];
}

export type BreakerChange = Extract<HealthEvent, { type: 'breaker-change' }>;

/** A breaker that has seen nothing: closed. */
export function closedBreaker(): BreakerRow {
  return { state: 'closed', openUntil: 0, failedProbes: 0, probeUntil: 0, window: [] };
}

/** The width of a window slice: a tenth of `windowMs`, in whole milliseconds. */
export function windowSliceMs(rules: HealthRules): number {
  return Math.max(1, Math.ceil(rules.windowMs / WINDOW_SLICES));
}

/**
 * Counts one outcome in the window at `now`. A slice counts while `now - start < windowMs`: an
 * outcome counts for `windowMs` at most, and at least `windowMs` less one slice.
 */
export function countOutcome(
  row: BreakerRow,
  outcome: 'failure' | 'success',
  rules: HealthRules,
  now: number,
): void {
  const width = windowSliceMs(rules);
  const start = Math.floor(now / width) * width;
  row.window = row.window.filter((slice) => slice.start > now - rules.windowMs);
  let slice = row.window.find((candidate) => candidate.start === start);
  if (slice === undefined) {
    slice = { start, failures: 0, successes: 0 };
    row.window.push(slice);
    row.window.sort((a, b) => a.start - b.start);
  }
  if (outcome === 'failure') slice.failures += 1;
  else slice.successes += 1;
}

/** The failures and successes the window holds at `now`. */
export function windowCounts(
  row: BreakerRow,
  rules: HealthRules,
  now: number,
): { failures: number; successes: number } {
  const live = row.window.filter((slice) => slice.start > now - rules.windowMs);
  return {
    failures: live.reduce((sum, slice) => sum + slice.failures, 0),
    successes: live.reduce((sum, slice) => sum + slice.successes, 0),
  };
}

/** Kinds that say something about the model's health, not about a profile or the caller. */
const MODEL_FAULTS: ReadonlySet<ErrorKind> = new Set([
  'overloaded',
  'server_error',
  'connection',
  'timeout',
  'provider_abort',
]);
/** Kinds whose long `retry-after` opens the breaker at once (a provider's own "come back later"). */
const RETRY_AFTER_KINDS: ReadonlySet<ErrorKind> = new Set(['overloaded', 'server_error']);

function longRetryAfter(kind: ErrorKind, retryAfterMs: number | undefined, rules: HealthRules) {
  return RETRY_AFTER_KINDS.has(kind) && (retryAfterMs ?? 0) > rules.longRetryAfterMs;
}

/** One report's changes to a breaker, and the events they make. */
export interface BreakerStep {
  /** The changes made so far, in order. */
  readonly events: BreakerChange[];
  success(row: BreakerRow, probe: boolean): void;
  failure(row: BreakerRow, kind: ErrorKind, probe: boolean, retryAfterMs?: number): void;
  overloaded(row: BreakerRow, retryAfterMs?: number): void;
  /** An open breaker whose cooldown has passed turns half-open (the next permit may probe). */
  expire(row: BreakerRow): void;
}

/**
 * The breaker transitions at time `now`. Closed, it counts the model's outcomes and opens on
 * evidence (`minFailures` faults that are `failureRatio` of the window) or a long `retry-after`.
 * Open, it stays so for the `retry-after` or `breakerCooldownMs` doubled per failed probe,
 * whichever is longer, capped by `maxBreakerCooldownMs` (a deadline only ever extended).
 * Half-open, the probe's success closes it and clears the window, its model fault reopens it.
 */
export function createBreakerStep(
  target: ModelTarget,
  rules: HealthRules,
  now: number,
): BreakerStep {
  const events: BreakerChange[] = [];

  function move(row: BreakerRow, to: BreakerState, reason: BreakerChange['reason']): void {
    const from = row.state;
    row.state = to;
    events.push({
      type: 'breaker-change',
      providerId: target.providerId,
      model: target.model,
      from,
      to,
      ...(to === 'open' ? { until: row.openUntil } : {}),
      reason,
    });
  }

  function open(row: BreakerRow, reason: BreakerChange['reason'], retryAfterMs?: number): void {
    const doubled = rules.breakerCooldownMs * 2 ** Math.min(row.failedProbes, 52);
    const cooldown = Math.min(rules.maxBreakerCooldownMs, Math.max(retryAfterMs ?? 0, doubled));
    const stillOpen = row.state === 'open' && now < row.openUntil;
    row.openUntil = Math.max(stillOpen ? row.openUntil : 0, now + cooldown);
    row.probeUntil = 0;
    row.window = [];
    if (!stillOpen) move(row, 'open', reason);
  }

  function tripped(row: BreakerRow): boolean {
    const { failures, successes } = windowCounts(row, rules, now);
    return failures >= rules.minFailures && failures / (failures + successes) >= rules.failureRatio;
  }

  return {
    events,

    success(row, probe) {
      if (probe && row.state === 'half-open') {
        row.failedProbes = 0;
        row.probeUntil = 0;
        row.window = [];
        move(row, 'closed', 'probe-succeeded');
      } else if (row.state === 'closed') {
        countOutcome(row, 'success', rules, now);
      }
    },

    failure(row, kind, probe, retryAfterMs) {
      const modelFault = MODEL_FAULTS.has(kind);
      if (probe && row.state === 'half-open') {
        if (!modelFault) {
          row.probeUntil = 0; // not the model's doing: the next caller probes
        } else {
          row.failedProbes += 1;
          open(row, 'probe-failed', retryAfterMs);
        }
      } else if (modelFault && longRetryAfter(kind, retryAfterMs, rules)) {
        open(row, kind, retryAfterMs);
      } else if (modelFault && row.state === 'closed') {
        countOutcome(row, 'failure', rules, now);
        if (tripped(row)) open(row, kind, retryAfterMs);
      }
    },

    overloaded(row, retryAfterMs) {
      // The give-up's failures were counted as they came; only a long retry-after opens here.
      if (longRetryAfter('overloaded', retryAfterMs, rules)) open(row, 'overloaded', retryAfterMs);
    },

    expire(row) {
      if (row.state === 'open' && now >= row.openUntil) move(row, 'half-open', 'cooldown-elapsed');
    },
  };
}

/** Applies one report to its model's breaker at time `now`; returns the changes it made. */
export function applyReport(
  row: BreakerRow,
  report: HealthReport,
  rules: HealthRules,
  now: number,
): BreakerChange[] {
  const step = createBreakerStep(report.target, rules, now);
  switch (report.type) {
    case 'success':
      step.success(row, report.probe);
      break;
    case 'failure':
      step.failure(row, report.kind, report.probe, report.retryAfterMs);
      break;
    case 'overloaded':
      step.overloaded(row, report.retryAfterMs);
      break;
    default: {
      const unexpected: never = report;
      throw new TypeError(`Unexpected health report ${JSON.stringify(unexpected)}`);
    }
  }
  return step.events;
}

/**
 * Whether a report can change its model's breaker at all: a store may skip reading the breaker
 * for the others (a rate limit, a caller's abort, a give-up without a long `retry-after`).
 */
export function touchesBreaker(report: HealthReport, rules: HealthRules): boolean {
  switch (report.type) {
    case 'success':
      return true;
    case 'failure':
      return report.probe || MODEL_FAULTS.has(report.kind);
    case 'overloaded':
      return longRetryAfter('overloaded', report.retryAfterMs, rules);
    default: {
      const unexpected: never = report;
      throw new TypeError(`Unexpected health report ${JSON.stringify(unexpected)}`);
    }
  }
}

/**
 * The cooldown a failure puts on its profile, or `undefined` when the failure is not the
 * profile's: a rate limit cools the profile for that model (`retry-after`, else the default); an
 * auth or billing failure cools the profile for every model, at least `authCooldownMs`.
 */
export function profileCooldown(
  target: ModelTarget,
  kind: ErrorKind,
  retryAfterMs: number | undefined,
  rules: HealthRules,
): { model: string | undefined; ms: number } | undefined {
  if (kind === 'rate_limit') {
    return { model: target.model, ms: retryAfterMs ?? rules.rateLimitCooldownMs };
  }
  if (kind === 'auth' || kind === 'billing') {
    return { model: undefined, ms: Math.max(retryAfterMs ?? 0, rules.authCooldownMs) };
  }
  return undefined;
}
