import { createProviderHealth } from '@keel/provider-health';
import type { HealthReport, ProviderHealth } from '@keel/spec';

/** The real in-process provider health, with every report it is given pushed onto `reports`. */
export function recordingHealth(reports: HealthReport[]): ProviderHealth {
  const health = createProviderHealth();
  return {
    permit: (target, options) => health.permit(target, options),
    report(report, options) {
      reports.push(report);
      return health.report(report, options);
    },
    snapshot: (options) => health.snapshot(options),
    subscribe: (listener) => health.subscribe(listener),
  };
}
