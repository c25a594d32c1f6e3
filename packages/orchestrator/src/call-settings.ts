import { buildModelChain } from './model-chain';
import { requestCeiling } from './turn-progress';
import type { TurnSettings } from './turn-runtime';

/** Routes remembered per settings; a client's `providerId/model` names make them open-ended. */
const MAX_ROUTES = 256;

/**
 * Per resolved settings (one orchestrator's config: a new config is a new object), the settings of
 * a stateless call on each route seen, by the route's models. Built once per route, not per call.
 */
const byConfig = new WeakMap<TurnSettings, Map<string, TurnSettings>>();

/**
 * The settings of one stateless call on `route`: its models first (each checked against the
 * configured providers: a bad one throws `OrchestratorConfigError`, and is not remembered), one step.
 */
export function callSettings(
  settings: TurnSettings,
  route: { primary: string; fallbacks?: readonly string[] },
): TurnSettings {
  const fallbacks = route.fallbacks ?? settings.fallbacks;
  const key = JSON.stringify([route.primary, ...fallbacks]);
  let routes = byConfig.get(settings);
  if (routes === undefined) {
    routes = new Map();
    byConfig.set(settings, routes);
  }
  const known = routes.get(key);
  if (known !== undefined) return known;
  buildModelChain(route.primary, fallbacks, settings.providers);
  const routed = { ...settings, primary: route.primary, fallbacks: [...fallbacks], maxSteps: 1 };
  const built: TurnSettings = { ...routed, requestCeiling: requestCeiling(routed) };
  if (routes.size >= MAX_ROUTES) {
    const oldest = routes.keys().next().value;
    if (oldest !== undefined) routes.delete(oldest);
  }
  routes.set(key, built);
  return built;
}
