import type { BreakerState, ErrorKind, HealthEvent, ModelTarget } from '@keel/spec';

/** Provider health settings; the defaults are the in-process health's (`@keel/orchestrator`). */
export interface HealthSettings {
  breakerCooldownMs: number;
  maxBreakerCooldownMs: number;
  burstThreshold: number;
  burstWindowMs: number;
  rateLimitCooldownMs: number;
  authCooldownMs: number;
  probeTimeoutMs: number;
  transactionIdleTimeoutMs: number;
}

/** One breaker row, times in clock ms. */
export interface BreakerRow {
  state: BreakerState;
  openUntil: number;
  failedProbes: number;
  probeUntil: number;
  /** When recent burst failures happened (server errors, connection failures) while closed. */
  burst: number[];
}

export type BreakerChange = Extract<HealthEvent, { type: 'breaker-change' }>;

/** Kinds that say something about the model's health, not about a profile or the caller. */
export const MODEL_FAULTS: ReadonlySet<ErrorKind> = new Set([
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

/**
 * The breaker transitions of one report, as a pure step over a locked row: the same rules as the
 * in-process health. A breaker opens when a turn gives up on a model for overload, or on a burst
 * of server errors; it stays open for the provider's `retry-after` or a cooldown that doubles with
 * each failed probe; a successful probe closes it.
 */
export function createBreakerStep(target: ModelTarget, settings: HealthSettings, now: number) {
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
        settings.maxBreakerCooldownMs,
        settings.breakerCooldownMs * 2 ** Math.min(row.failedProbes, 52),
      );
    row.openUntil = Math.max(row.openUntil, now + cooldown);
    row.probeUntil = 0;
    row.burst = [];
    move(row, 'open', reason);
  }

  return {
    events,

    success(row: BreakerRow, probe: boolean): void {
      row.burst = [];
      if (probe && row.state === 'half-open') {
        row.failedProbes = 0;
        row.probeUntil = 0;
        move(row, 'closed', 'probe-succeeded');
      }
    },

    failure(row: BreakerRow, kind: ErrorKind, probe: boolean, retryAfterMs?: number): void {
      if (probe && row.state === 'half-open') {
        if (MODEL_FAULTS.has(kind)) {
          row.failedProbes += 1;
          open(row, 'probe-failed', retryAfterMs);
        } else {
          row.probeUntil = 0; // not the model's doing: the next caller probes
        }
      }
      if (BURST_KINDS.has(kind) && row.state === 'closed') {
        row.burst = row.burst.filter((at) => now - at < settings.burstWindowMs);
        row.burst.push(now);
        if (row.burst.length >= settings.burstThreshold) open(row, kind, retryAfterMs);
      }
    },

    overloaded(row: BreakerRow, retryAfterMs?: number): void {
      if (row.state !== 'open' || now >= row.openUntil) {
        open(row, 'overloaded', retryAfterMs);
      } else if (retryAfterMs !== undefined) {
        row.openUntil = Math.max(row.openUntil, now + retryAfterMs);
      }
    },
  };
}
