import {
  createProviderHealth as createHealth,
  type ProviderHealthOptions,
} from '@keel/provider-health';
import type { ProviderHealth } from '@keel/spec';
import { asOrchestratorConfig } from './health-config';

export type { ProviderHealthOptions } from '@keel/provider-health';

/**
 * `@keel/provider-health`'s in-process health (the orchestrator's default), as this package has
 * always exported it: options that cannot work throw `OrchestratorConfigError` naming the option.
 */
export function createProviderHealth(options?: ProviderHealthOptions): ProviderHealth {
  return asOrchestratorConfig(() => createHealth(options));
}
