import { OrchestratorConfigError } from './orchestrator-error';

/** A model named as `providerId/model`, split on the first `/` (model names may contain `/`). */
export interface ModelRef {
  providerId: string;
  model: string;
}

/** A provider and its auth profiles, in the order they are tried. */
export interface ProviderProfiles {
  id: string;
  /** At least one; a provider without keys (claude-cli) has one profile, e.g. `default`. */
  profiles: ReadonlyArray<{ id: string }>;
}

/** One model of the chain with the profiles it can be reached through. */
export interface ChainModel extends ModelRef {
  /** `providerId/model`. */
  key: string;
  profiles: readonly string[];
}

/** Splits `providerId/model` on the first `/`; throws `OrchestratorConfigError` on a bad reference. */
export function parseModelRef(reference: string): ModelRef {
  const slash = reference.indexOf('/');
  if (slash <= 0 || slash === reference.length - 1) {
    throw new OrchestratorConfigError({
      message: `Model "${reference}" is not of the form providerId/model`,
      path: 'models',
    });
  }
  return { providerId: reference.slice(0, slash), model: reference.slice(slash + 1) };
}

/** `providerId/model` of a reference. */
export function modelKey(reference: ModelRef): string {
  return `${reference.providerId}/${reference.model}`;
}

/**
 * The models a turn may use, in order: the selected (or primary) model, then each fallback once.
 * Every provider must be configured with at least one profile.
 */
export function buildModelChain(
  first: string,
  fallbacks: readonly string[],
  providers: readonly ProviderProfiles[],
): ChainModel[] {
  const byId = new Map(providers.map((provider) => [provider.id, provider]));
  const seen = new Set<string>();
  const chain: ChainModel[] = [];
  for (const reference of [first, ...fallbacks]) {
    const parsed = parseModelRef(reference);
    const key = modelKey(parsed);
    if (seen.has(key)) continue;
    seen.add(key);
    const provider = byId.get(parsed.providerId);
    if (provider === undefined) {
      throw new OrchestratorConfigError({
        message: `Model "${reference}" names provider "${parsed.providerId}", which is not configured`,
        path: 'models',
      });
    }
    if (provider.profiles.length === 0) {
      throw new OrchestratorConfigError({
        message: `Provider "${provider.id}" has no auth profiles`,
        path: 'providers',
      });
    }
    chain.push({
      providerId: parsed.providerId,
      model: parsed.model,
      key,
      profiles: provider.profiles.map((profile) => profile.id),
    });
  }
  return chain;
}
