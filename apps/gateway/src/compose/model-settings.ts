// `models.settings` serves two readers: the orchestrator takes every setting but the prices,
// and the start-up log tells the operator what each model will really run with.
import type { ModelSettings } from '@keel/orchestrator';
import type { KeelConfig } from '../config/config-schema';
import type { Prices } from '../config/model-settings-schema';

/** `models.settings` as the orchestrator's `models.settings` option: prices left out. */
export function orchestratorModelSettings(config: KeelConfig): Record<string, ModelSettings> {
  const settings: Record<string, ModelSettings> = {};
  for (const [model, { prices: _prices, ...rest }] of Object.entries(config.models.settings)) {
    settings[model] = rest;
  }
  return settings;
}

/** What one model runs with: its own setting, else the turn-wide one (`null`: not declared). */
export interface EffectiveModelSettings {
  model: string;
  role: 'primary' | 'fallback' | 'selectable';
  contextWindowTokens: number | null;
  /** `null`: the provider's `maxTokens`, else the transport's default. */
  maxOutputTokens: number | null;
  firstTokenTimeoutMs: number;
  stallTimeoutMs: number;
  prices: Prices | null;
}

/** The models a session may use, in order: primary, fallbacks, then the other settings keys. */
export function configuredModels(config: KeelConfig): string[] {
  return [
    ...new Set([
      config.models.primary,
      ...config.models.fallbacks,
      ...Object.keys(config.models.settings),
    ]),
  ];
}

/** The effective settings of every configured model, for the start-up log. */
export function effectiveModelSettings(config: KeelConfig): EffectiveModelSettings[] {
  const fallbacks = new Set(config.models.fallbacks);
  return configuredModels(config).map((model) => {
    const own = config.models.settings[model] ?? {};
    const providerId = model.slice(0, model.indexOf('/'));
    const provider = config.providers.find((candidate) => candidate.id === providerId);
    const providerMax =
      provider !== undefined && 'maxTokens' in provider ? provider.maxTokens : undefined;
    return {
      model,
      role:
        model === config.models.primary
          ? 'primary'
          : fallbacks.has(model)
            ? 'fallback'
            : 'selectable',
      contextWindowTokens: own.contextWindowTokens ?? null,
      maxOutputTokens: own.maxOutputTokens ?? providerMax ?? null,
      firstTokenTimeoutMs: own.firstTokenTimeoutMs ?? config.turn.firstTokenTimeoutMs,
      stallTimeoutMs: own.stallTimeoutMs ?? config.turn.stallTimeoutMs,
      prices: own.prices ?? null,
    };
  });
}
