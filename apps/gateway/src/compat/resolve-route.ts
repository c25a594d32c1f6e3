import { configuredModels } from '../compose/model-settings';
import type { KeelConfig } from '../config/config-schema';

/** Where a compatible endpoint's request goes: a named route, or one model then the defaults. */
export interface ResolvedRoute {
  /** The route's name, or the `providerId/model` the client named. */
  name: string;
  primary: string;
  fallbacks: readonly string[];
}

/** The default route: `routes.default` when configured, else `models`. */
export function defaultRoute(config: KeelConfig): ResolvedRoute {
  const route = config.routes['default'] ?? config.models;
  return { name: 'default', primary: route.primary, fallbacks: route.fallbacks };
}

/** Every model a client may name as `providerId/model`: in a route, the chain or `models.settings`. */
export function routableModels(config: KeelConfig): Set<string> {
  const models = new Set(configuredModels(config));
  for (const route of Object.values(config.routes)) {
    models.add(route.primary);
    for (const fallback of route.fallbacks) models.add(fallback);
  }
  return models;
}

/**
 * A client's `model`: a route name (`default` is `models` unless `routes.default` is given), or a
 * configured `providerId/model` — that model first, then the default route's fallbacks (without
 * it). Anything else is `undefined`: the endpoint answers `404 model_not_found`.
 */
export function resolveRoute(config: KeelConfig, model: string): ResolvedRoute | undefined {
  const named = config.routes[model];
  if (named !== undefined) return { name: model, ...named };
  if (model === 'default') return defaultRoute(config);
  if (!model.includes('/') || !routableModels(config).has(model)) return undefined;
  const fallbacks = defaultRoute(config).fallbacks.filter((fallback) => fallback !== model);
  return { name: model, primary: model, fallbacks };
}

/** The names a client may send as `model`, in a stable order: routes, then configured models. */
export function routeNames(config: KeelConfig): string[] {
  const routes = ['default', ...Object.keys(config.routes).filter((name) => name !== 'default')];
  return [...routes, ...[...routableModels(config)].sort()];
}
