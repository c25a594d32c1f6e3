import { HealthConfigError } from '@keel/provider-health';
import { OrchestratorConfigError } from './orchestrator-error';

/**
 * Runs `make` and turns a `HealthConfigError` into the `OrchestratorConfigError` (same message
 * and `path`, the original as `cause`) this package raised when the health rules lived here.
 */
export function asOrchestratorConfig<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (!HealthConfigError.isInstance(error)) throw error;
    throw new OrchestratorConfigError({ message: error.message, path: error.path, cause: error });
  }
}
