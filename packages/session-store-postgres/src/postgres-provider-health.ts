import {
  applyReport,
  type BreakerRow,
  type HealthRuleOptions,
  profileCooldown,
  resolveHealthRules,
  touchesBreaker,
  windowSliceMs,
} from '@keel/provider-health';
import type {
  HealthCallOptions,
  HealthEvent,
  HealthPermit,
  HealthReport,
  HealthSnapshot,
  ModelTarget,
  ProviderHealth,
} from '@keel/spec';
import { createHealthQueries } from './health-queries';
import { type PostgresConnectionOptions, resolvePool } from './postgres-pool';
import { createSchemaGate } from './schema-gate';

/** The connection, the schema, and the rules' options (`@keel/provider-health`'s defaults). */
export type PostgresProviderHealthOptions = PostgresConnectionOptions &
  HealthRuleOptions & {
    /** The PostgreSQL schema that holds the tables; default `keel`. */
    schema?: string;
    /** Migrate the schema on first use (default true). */
    migrate?: boolean;
    /**
     * Tests only: judge time by this clock instead of the database's `clock_timestamp()`. Every
     * gateway that shares the rows must use the same time source.
     */
    clock?: { now(): number };
    /**
     * A report's transaction (it locks the model's breaker row) left idle this long by its process
     * — frozen: SIGSTOP, a paused VM, a partition — is ended by the server, so that it never keeps
     * every other gateway's reports and probes waiting; default 10 000 ms.
     */
    transactionIdleTimeoutMs?: number;
  };

/** `ProviderHealth` over PostgreSQL rows, plus `close()`. */
export interface PostgresProviderHealth extends ProviderHealth {
  /** Ends the pool if this health opened it (a given pool is left open). */
  close(): Promise<void>;
}

/**
 * Provider health shared by every gateway on one database: a breaker row per provider and model,
 * holding its window of outcomes, and a cooldown row per profile (and model, for rate limits). The
 * rules are the in-process health's (`@keel/provider-health`'s `createProviderHealth`), checked when
 * it is made; time comes from the database. A success outside a probe is one statement; every
 * other report that can change a breaker applies the rules under the row's lock; one that cannot
 * (a rate limit, a give-up without a long `retry-after`) leaves the row alone. Half-open lets
 * exactly one probe through across all gateways: the probe is claimed by a conditional `UPDATE`
 * that only one caller's row lock can satisfy. A cooldown is only ever extended. `subscribe` sees
 * the changes this process made.
 */
export function createPostgresProviderHealth(
  options: PostgresProviderHealthOptions,
): PostgresProviderHealth {
  const rules = resolveHealthRules(options);
  const window = { sliceMs: windowSliceMs(rules), windowMs: rules.windowMs };
  const transactionIdleTimeoutMs = options.transactionIdleTimeoutMs ?? 10_000;
  const { pool, owned } = resolvePool(options);
  const context = createSchemaGate({
    pool,
    schema: options.schema ?? 'keel',
    migrate: options.migrate ?? true,
  });
  const queries = createHealthQueries(context.schema, () => options.clock?.now() ?? null);
  const listeners = new Set<(event: HealthEvent) => void>();

  function emit(events: readonly HealthEvent[], own?: (event: HealthEvent) => void): void {
    for (const event of events) {
      if (own !== undefined) {
        try {
          own(event);
        } catch {
          // The caller's own listener never breaks health bookkeeping either.
        }
      }
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // An observer never breaks health bookkeeping.
        }
      }
    }
  }

  async function permit(
    target: ModelTarget,
    { signal, onEvent }: HealthCallOptions,
  ): Promise<HealthPermit> {
    await context.ready(signal);
    const look = await queries.look(pool, target);
    const { now } = look;
    if (look.coolingUntil !== undefined) {
      return { allowed: false, reason: 'profile-cooling', waitMs: look.coolingUntil - now };
    }
    if (look.breaker === undefined || look.breaker.state === 'closed') {
      return { allowed: true, probe: false };
    }
    if (look.breaker.state === 'open' && now < look.breaker.openUntil) {
      return { allowed: false, reason: 'breaker-open', waitMs: look.breaker.openUntil - now };
    }
    signal?.throwIfAborted();
    if (await queries.halfOpen(pool, target, now)) {
      emit(
        [
          {
            type: 'breaker-change',
            providerId: target.providerId,
            model: target.model,
            from: 'open',
            to: 'half-open',
            reason: 'cooldown-elapsed',
          },
        ],
        onEvent,
      );
    }
    if (await queries.claimProbe(pool, target, now, rules.probeTimeoutMs)) {
      return { allowed: true, probe: true };
    }
    // Another caller claimed the probe (or closed or reopened the breaker) meanwhile.
    const after = await queries.breaker(pool, target);
    if (after === undefined || after.state === 'closed') return { allowed: true, probe: false };
    if (after.state === 'open' && now < after.openUntil) {
      return { allowed: false, reason: 'breaker-open', waitMs: after.openUntil - now };
    }
    return {
      allowed: false,
      reason: 'probe-in-flight',
      waitMs: Math.max(1, after.probeUntil - now),
    };
  }

  async function report(
    report: HealthReport,
    { signal, onEvent }: HealthCallOptions,
  ): Promise<void> {
    await context.ready(signal);
    if (report.type === 'success' && !report.probe) {
      await queries.countSuccess(pool, report.target, window);
      return;
    }
    const events: HealthEvent[] = touchesBreaker(report, rules)
      ? await queries.changeBreaker(
          pool,
          report.target,
          { signal, idleTimeoutMs: transactionIdleTimeoutMs },
          (row: BreakerRow, now: number) => applyReport(row, report, rules, now),
        )
      : [];
    if (report.type === 'failure') {
      const cooldown = profileCooldown(report.target, report.kind, report.retryAfterMs, rules);
      if (cooldown !== undefined) {
        const until = await queries.extendCooldown(pool, report.target, report.kind, cooldown);
        if (until !== undefined) {
          events.push({
            type: 'cooldown-start',
            providerId: report.target.providerId,
            profileId: report.target.profileId,
            ...(cooldown.model === undefined ? {} : { model: cooldown.model }),
            kind: report.kind,
            until,
          });
        }
      }
    }
    emit(events, onEvent);
  }

  return {
    permit: (target, callOptions = {}) => permit(target, callOptions),
    report: (healthReport, callOptions = {}) => report(healthReport, callOptions),
    async snapshot(callOptions = {}): Promise<HealthSnapshot> {
      await context.ready(callOptions.signal);
      return queries.snapshot(pool);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async close() {
      if (context.closed) return;
      context.closed = true;
      if (owned) await pool.end();
    },
  };
}
