// @keel/orchestrator alone (its only dependencies are @keel/spec, @keel/error-classification and
// @keel/provider-health): the provider health every session shares, and an orchestrator's bounds
// checked at creation. A turn needs the storage, fence and model ports other packages fill; they
// are not reached here.
import {
  createOrchestrator,
  createProviderHealth,
  OrchestratorConfigError,
  type OrchestratorOptions,
  parseModelRef,
} from '@keel/orchestrator';
import type { ModelRouter, SessionFenceFactory, SessionStorage } from '@keel/spec';

/** A port no call may reach before a turn runs: any use throws. */
function unreachable<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get: (_target, key) => () => {
      throw new Error(`${name}.${String(key)} was called`);
    },
  });
}

export async function consume(): Promise<unknown> {
  const health = createProviderHealth();
  const changes: string[] = [];
  health.subscribe((event) => changes.push(event.type));
  const target = { providerId: 'anthropic', profileId: 'main', model: 'claude-primary' };
  const before = await health.permit(target);
  await health.report({ type: 'overloaded', target, retryAfterMs: 30_000 });
  const after = await health.permit(target);

  const options: OrchestratorOptions = {
    storage: unreachable<SessionStorage>('storage'),
    fences: (() => unreachable('fence')) as SessionFenceFactory,
    router: unreachable<ModelRouter>('router'),
    providers: [
      { id: 'anthropic', profiles: [{ id: 'main' }, { id: 'spare' }] },
      { id: 'openai', profiles: [{ id: 'backup' }] },
    ],
    models: { primary: 'anthropic/claude-primary', fallbacks: ['openai/gpt-fallback'] },
    health,
  };
  const orchestrator = createOrchestrator(options);
  let configError = '';
  try {
    createOrchestrator({ ...options, models: { primary: 'no-slash' } });
  } catch (error) {
    if (!OrchestratorConfigError.isInstance(error)) throw error;
    configError = error.name;
  }
  return {
    before,
    after: after.allowed ? after : { allowed: after.allowed, reason: after.reason },
    changes,
    requestCeiling: orchestrator.requestCeiling,
    model: parseModelRef('openai/gpt-fallback'),
    configError,
  };
}
