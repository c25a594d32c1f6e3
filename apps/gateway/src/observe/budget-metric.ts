/**
 * `keel_budget_remaining{provider, profile, model, limit}`: what is left of each configured
 * provider budget (`rpm`, `tpm`, `tpd`), read from the ledger at each scrape (shared by every
 * gateway over PostgreSQL, so each gateway reports the cluster's budget).
 */
import { Gauge } from 'prom-client';
import type { GatewayBudgets } from '../compose/create-budgets';

export function createBudgetMetric(budgets: GatewayBudgets): Gauge {
  return new Gauge({
    name: 'keel_budget_remaining',
    help: 'What is left of a provider budget now: requests (rpm) or tokens (tpm, tpd).',
    labelNames: ['provider', 'profile', 'model', 'limit'],
    registers: [],
    async collect() {
      this.reset();
      for (const state of await budgets.snapshot().catch(() => [])) {
        for (const limit of ['rpm', 'tpm', 'tpd'] as const) {
          const left = state.remaining[limit];
          if (left === undefined) continue;
          this.set(
            { provider: state.providerId, profile: state.profileId, model: state.model, limit },
            left,
          );
        }
      }
    },
  });
}
