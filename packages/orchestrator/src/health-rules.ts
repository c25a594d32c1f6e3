/**
 * `@keel/orchestrator/health-rules`: the provider-health rules, now `@keel/provider-health`'s,
 * re-exported for code written against this entry. Import them from `@keel/provider-health`.
 */
import {
  type HealthRuleOptions,
  type HealthRules,
  resolveHealthRules as resolveRules,
} from '@keel/provider-health';
import { asOrchestratorConfig } from './health-config';

export type {
  BreakerChange,
  BreakerRow,
  BreakerStep,
  HealthRuleOptions,
  HealthRules,
  WindowSlice,
} from '@keel/provider-health';
export {
  applyReport,
  closedBreaker,
  countOutcome,
  createBreakerStep,
  profileCooldown,
  touchesBreaker,
  WINDOW_SLICES,
  windowCounts,
  windowSliceMs,
} from '@keel/provider-health';

/** `@keel/provider-health`'s `resolveHealthRules`; options that cannot work throw `OrchestratorConfigError`. */
export function resolveHealthRules(options?: HealthRuleOptions): HealthRules {
  return asOrchestratorConfig(() => resolveRules(options));
}
