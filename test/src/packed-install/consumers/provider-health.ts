// @keel/provider-health alone (its only dependency is @keel/spec, types): the in-process health,
// the pure rules applied to a row kept elsewhere, and options refused by name.
import {
  applyReport,
  closedBreaker,
  createProviderHealth,
  HealthConfigError,
  resolveHealthRules,
} from '@keel/provider-health';

export async function consume(): Promise<unknown> {
  const health = createProviderHealth();
  const target = { providerId: 'anthropic', profileId: 'main', model: 'claude-primary' };
  for (let i = 0; i < 3; i += 1) {
    await health.report({ type: 'failure', target, kind: 'server_error', probe: false });
  }
  const permit = await health.permit({ ...target, profileId: 'spare' });

  const row = closedBreaker();
  const rules = resolveHealthRules({ minFailures: 1 });
  const changes = applyReport(
    row,
    { type: 'failure', target, kind: 'timeout', probe: false },
    rules,
    1_000,
  );

  let refused = '';
  try {
    createProviderHealth({ failureRatio: 2 });
  } catch (error) {
    if (!HealthConfigError.isInstance(error)) throw error;
    refused = `${error.name} ${error.path}`;
  }
  return {
    permit: permit.allowed ? permit : { allowed: permit.allowed, reason: permit.reason },
    row: { state: row.state, openUntil: row.openUntil },
    changes: changes.map((change) => `${change.from}>${change.to}:${change.reason}`),
    refused,
  };
}
