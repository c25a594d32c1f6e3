/**
 * Provider budgets from `budgets` in the config: the ledger (in memory for one gateway, PostgreSQL
 * rows shared by every gateway when the sessions are there), the budget of each target for the
 * orchestrator, and what is left of each configured budget for `/v1/providers/health`, the console
 * and `keel_budget_remaining`.
 */
import {
  type BudgetLedger,
  type BudgetLimits,
  type BudgetRemaining,
  budgetKey,
  createBudgetLedger,
  pacedBudgetLimits,
  type TurnBudgets,
} from '@keel/orchestrator';
import type { ModelTarget } from '@keel/spec';
import type { KeelConfig } from '../config/config-schema';
import { profileIdsOf } from './create-model-router';
import { type PostgresModule, requirePostgres } from './postgres-module';

/** One configured budget now: its target, limits and what is left of each. */
export interface BudgetState {
  providerId: string;
  profileId: string;
  model: string;
  limits: BudgetLimits;
  remaining: BudgetRemaining;
}

export interface GatewayBudgets {
  /** For the orchestrator's `budgets` option; `undefined` when no budget is configured. */
  readonly turnBudgets: TurnBudgets | undefined;
  /** Whether the budgets are shared by every gateway on the database. */
  readonly shared: boolean;
  /** Every configured budget (a model's budget once per profile), with what is left. */
  snapshot(): Promise<BudgetState[]>;
  close(): Promise<void>;
}

/**
 * `onUnchecked`: a reservation the ledger failed to answer (a database down, its pool exhausted);
 * the orchestrator then lets the request go unbudgeted and its attempt says so.
 */
export function createGatewayBudgets(
  config: KeelConfig,
  postgresPackage?: PostgresModule,
  onUnchecked?: (key: string, error: unknown) => void,
): GatewayBudgets {
  const { limits, minuteMs } = config.budgets;
  const targets = configuredTargets(config);
  if (targets.length === 0) {
    return {
      turnBudgets: undefined,
      shared: false,
      snapshot: async () => [],
      close: async () => {},
    };
  }
  const storage = config.storage;
  const postgres =
    storage.kind === 'postgres'
      ? requirePostgres(postgresPackage).createPostgresBudgetLedger({
          connectionString: storage.url,
          maxConnections: 4,
          ...(storage.timeouts === undefined ? {} : { timeouts: storage.timeouts }),
          minuteMs,
        })
      : undefined;
  const ledger: BudgetLedger = postgres ?? createBudgetLedger({ minuteMs });
  const limitsOf = (target: ModelTarget): BudgetLimits | undefined =>
    limits[budgetKey(target)] ?? limits[`${target.providerId}/${target.model}`];
  return {
    turnBudgets: {
      ledger: onUnchecked === undefined ? ledger : reportingFailures(ledger, onUnchecked),
      budgetOf(target) {
        const found = limitsOf(target);
        // Provider budgets are paced by default: the provider counts arrivals at sub-minute grain.
        return found === undefined
          ? undefined
          : { key: budgetKey(target), limits: pacedBudgetLimits(found) };
      },
    },
    shared: postgres !== undefined,
    async snapshot() {
      return Promise.all(
        targets.map(async (target) => {
          const own = limitsOf(target) ?? {};
          return {
            ...target,
            limits: own,
            remaining: await ledger.remaining(budgetKey(target), own),
          };
        }),
      );
    },
    async close() {
      await postgres?.close();
    },
  };
}

/** The ledger, whose failed reservations are told to `onUnchecked` before they reject. */
function reportingFailures(
  ledger: BudgetLedger,
  onUnchecked: (key: string, error: unknown) => void,
): BudgetLedger {
  return {
    reserve: (key, limits, tokens) =>
      ledger.reserve(key, limits, tokens).catch((error: unknown) => {
        onUnchecked(key, error);
        throw error;
      }),
    reconcile: (reservation, usedTokens) => ledger.reconcile(reservation, usedTokens),
    cancel: (reservation) => ledger.cancel(reservation),
    record: (key, limits, usedTokens) => ledger.record(key, limits, usedTokens),
    remaining: (key, limits) => ledger.remaining(key, limits),
  };
}

/** Each configured budget's targets: a `providerId/model` once per profile of its provider. */
function configuredTargets(config: KeelConfig): ModelTarget[] {
  const seen = new Map<string, ModelTarget>();
  for (const name of Object.keys(config.budgets.limits)) {
    const hash = name.indexOf('#');
    const reference = hash < 0 ? name : name.slice(0, hash);
    const slash = reference.indexOf('/');
    const providerId = reference.slice(0, slash);
    const model = reference.slice(slash + 1);
    const provider = config.providers.find((candidate) => candidate.id === providerId);
    if (provider === undefined) continue;
    const profiles = hash < 0 ? profileIdsOf(provider) : [name.slice(hash + 1)];
    for (const profileId of profiles) {
      const target = { providerId, profileId, model };
      seen.set(budgetKey(target), target);
    }
  }
  return [...seen.values()];
}
