// The rules of `keys` that need the rest of the configuration: what a key names exists, its secret
// is not the admin token, and a spend cap can be counted (every model it may reach has prices).
import type { z } from 'zod';
import { resolveRoute, routeNames } from '../compat/resolve-route';
import type { KeelConfig } from '../config/config-schema';

/** The models a key's requests may reach: each allowed name's route, fallbacks included. */
export function reachableModels(
  config: KeelConfig,
  allowed: readonly string[] | undefined,
): Set<string> {
  const models = new Set<string>();
  for (const name of allowed ?? routeNames(config)) {
    const route = resolveRoute(config, name);
    if (route === undefined) continue;
    models.add(route.primary);
    for (const fallback of route.fallbacks) models.add(fallback);
  }
  return models;
}

export function checkKeys(config: KeelConfig, context: z.RefinementCtx): void {
  config.keys.forEach((key, index) => {
    if (config.server.authToken !== undefined && key.secret === config.server.authToken) {
      context.addIssue({
        code: 'custom',
        path: ['keys', index, 'secret'],
        message: 'must differ from server.authToken',
      });
    }
    for (const name of key.models ?? []) {
      if (resolveRoute(config, name) === undefined) {
        context.addIssue({
          code: 'custom',
          path: ['keys', index, 'models'],
          message: `names "${name}", which is neither a route nor a configured model`,
        });
      }
    }
    if (key.spendCapUsd === undefined) return;
    const unpriced = [...reachableModels(config, key.models)].filter(
      (model) => config.models.settings[model]?.prices === undefined,
    );
    if (unpriced.length > 0) {
      context.addIssue({
        code: 'custom',
        path: ['keys', index, 'spendCapUsd'],
        message: `needs prices for every model the key may reach; none in models.settings for ${unpriced.join(', ')}`,
      });
    }
  });
}
