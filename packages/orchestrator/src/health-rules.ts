/**
 * The rules of provider health, as pure steps over plain state: the one copy that the in-process
 * health (`createProviderHealth`) and stores that keep health elsewhere (PostgreSQL) both apply.
 * Published as `@keel/orchestrator/health-rules` for those who implement the `ProviderHealth` port.
 */
import type { BreakerState, ErrorKind, HealthEvent, HealthReport, ModelTarget } from '@keel/spec';

/** What a provider health can be told; every field has a default. */
export interface HealthRuleOptions {
  /** How long a breaker stays open when the provider gave no `retry-after`; default 10 000 ms. */
  breakerCooldownMs?: number;
  /** The longest breaker cooldown after repeated failed probes (it doubles each time); default 300 000 ms. */
  maxBreakerCooldownMs?: number;
  /** Server errors or connection failures, across sessions, that open a model's breaker; default 5… */
  burstThreshold?: number;
  /** …within this window; default 30 000 ms. */
  burstWindowMs?: number;
  /** How long a rate-limited profile cools for a model when no `retry-after` came; default 30 000 ms. */
  rateLimitCooldownMs?: number;
  /** How long a profile cools after an auth or billing failure; default 900 000 ms. */
  authCooldownMs?: number;
  /** A probe not reported within this time is handed to the next caller; default 60 000 ms. */
  probeTimeoutMs?: number;
}

/** The options with every default applied. */
export type HealthRules = Required<HealthRuleOptions>;

export function resolveHealthRules(options: HealthRuleOptions = {}): HealthRules {
  return {
    breakerCooldownMs: options.breakerCooldownMs ?? 10_000,
    maxBreakerCooldownMs: options.maxBreakerCooldownMs ?? 300_000,
    burstThreshold: options.burstThreshold ?? 5,
    burstWindowMs: options.burstWindowMs ?? 30_000,
    rateLimitCooldownMs: options.rateLimitCooldownMs ?? 30_000,
    authCooldownMs: options.authCooldownMs ?? 900_000,
    probeTimeoutMs: options.probeTimeoutMs ?? 60_000,
  };
}

/** One model's breaker, times in clock milliseconds. */
export interface BreakerRow {
  state: BreakerState;
  openUntil: number;
  failedProbes: number;
  /** Until when the half-open probe handed out is waited for (0: none handed out). */
  probeUntil: number;
  /** When recent burst failures happened (server errors, connection failures) while closed. */
  burst: number[];
}

export type BreakerChange = Extract<HealthEvent, { type: 'breaker-change' }>;

/** A breaker that has seen nothing: closed. */
export function closedBreaker(): BreakerRow {
  return { state: 'closed', openUntil: 0, failedProbes: 0, probeUntil: 0, burst: [] };
}

/** Kinds that say something about the model's health, not about a profile or the caller. */
const MODEL_FAULTS: ReadonlySet<ErrorKind> = new Set([
  'overloaded',
  'server_error',
  'connection',
  'timeout',
  'provider_abort',
]);
const BURST_KINDS: ReadonlySet<ErrorKind> = new Set([
  'server_error',
  'connection',
  'timeout',
  'provider_abort',
]);

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
 * The breaker transitions at time `now`. A breaker opens when a turn gives up on a model for
 * overload, or on a burst of server errors; it stays open for the provider's `retry-after`
 * (however long) or a cooldown that doubles with each failed probe; half-open, the probe's success
 * closes it and its failure opens it again. An open breaker's deadline is only ever extended.
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
    if (from === to && to !== 'open') return;
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
    const cooldown =
      retryAfterMs ??
      Math.min(
        rules.maxBreakerCooldownMs,
        rules.breakerCooldownMs * 2 ** Math.min(row.failedProbes, 52),
      );
    row.openUntil = Math.max(row.openUntil, now + cooldown);
    row.probeUntil = 0;
    row.burst = [];
    move(row, 'open', reason);
  }

  return {
    events,

    success(row, probe) {
      row.burst = [];
      if (probe && row.state === 'half-open') {
        row.failedProbes = 0;
        row.probeUntil = 0;
        move(row, 'closed', 'probe-succeeded');
      }
    },

    failure(row, kind, probe, retryAfterMs) {
      if (probe && row.state === 'half-open') {
        if (MODEL_FAULTS.has(kind)) {
          row.failedProbes += 1;
          open(row, 'probe-failed', retryAfterMs);
        } else {
          row.probeUntil = 0; // not the model's doing: the next caller probes
        }
      }
      if (BURST_KINDS.has(kind) && row.state === 'closed') {
        row.burst = row.burst.filter((at) => now - at < rules.burstWindowMs);
        row.burst.push(now);
        if (row.burst.length >= rules.burstThreshold) open(row, kind, retryAfterMs);
      }
    },

    overloaded(row, retryAfterMs) {
      if (row.state !== 'open' || now >= row.openUntil) {
        open(row, 'overloaded', retryAfterMs);
      } else if (retryAfterMs !== undefined) {
        row.openUntil = Math.max(row.openUntil, now + retryAfterMs);
      }
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
