import { buildModelChain, modelKey, parseModelRef } from './model-chain';
import { OrchestratorConfigError } from './orchestrator-error';
import type { ModelSettings, OrchestratorOptions } from './orchestrator-options';
import { DEFAULT_MAX_REPLY_BYTES } from './reply-cap';
import { DEFAULT_TURN_COPY } from './turn-copy';
import { requestCeiling } from './turn-progress';
import type { TurnSettings } from './turn-runtime';

/** Applies every default and refuses options that cannot work, naming the option. */
export function resolveSettings(options: OrchestratorOptions): TurnSettings {
  const retry = options.retry ?? {};
  const timeouts = options.callTimeouts ?? {};
  const base = {
    maxRetries: count(retry.maxRetries, 1, 'retry.maxRetries'),
    maxWaitMs: duration(retry.maxWaitMs, 10_000, 'retry.maxWaitMs'),
    maxWaits: count(retry.maxWaits, 2, 'retry.maxWaits'),
    baseDelayMs: duration(retry.baseDelayMs, 500, 'retry.baseDelayMs'),
    maxDelayMs: duration(retry.maxDelayMs, 8_000, 'retry.maxDelayMs'),
    rateLimitCooldownMs: 30_000,
    maxSteps: positive(options.maxSteps, 16, 'maxSteps'),
    toolTimeoutMs: positive(options.toolTimeoutMs, 60_000, 'toolTimeoutMs'),
    maxModelSwitches: count(options.maxModelSwitches, 2, 'maxModelSwitches'),
    turnTimeoutMs: positive(options.turnTimeoutMs, 600_000, 'turnTimeoutMs'),
    lockTimeoutMs: options.lockTimeoutMs,
    maxReplyBytes: positive(options.maxReplyBytes, DEFAULT_MAX_REPLY_BYTES, 'maxReplyBytes'),
    callTimeouts: {
      timeoutMs: positive(timeouts.timeoutMs, 300_000, 'callTimeouts.timeoutMs'),
      firstTokenTimeoutMs: positive(
        timeouts.firstTokenTimeoutMs,
        30_000,
        'callTimeouts.firstTokenTimeoutMs',
      ),
      stallTimeoutMs: positive(timeouts.stallTimeoutMs, 30_000, 'callTimeouts.stallTimeoutMs'),
    },
    queueMode: options.queueMode ?? 'followup',
    system: options.system,
    maxTokens: options.maxTokens,
    primary: options.models.primary,
    fallbacks: options.models.fallbacks ?? [],
    modelSettings: resolveModelSettings(options.models.settings),
    providers: options.providers,
  } satisfies Omit<TurnSettings, 'requestCeiling' | 'copy' | 'selectable'>;
  if (base.queueMode !== 'followup' && base.queueMode !== 'steer') {
    throw new OrchestratorConfigError({
      message: `queueMode must be "followup" or "steer", not ${JSON.stringify(base.queueMode)}`,
      path: 'queueMode',
    });
  }
  const ids = new Set<string>();
  for (const provider of base.providers) {
    if (ids.has(provider.id)) {
      throw new OrchestratorConfigError({
        message: `Provider "${provider.id}" is configured twice`,
        path: 'providers',
      });
    }
    ids.add(provider.id);
  }
  buildModelChain(base.primary, base.fallbacks, base.providers);
  for (const key of base.modelSettings.keys()) buildModelChain(key, [], base.providers);
  const selectable = new Set(
    [base.primary, ...base.fallbacks, ...base.modelSettings.keys()].map((reference) =>
      modelKey(parseModelRef(reference)),
    ),
  );
  const withSelectable = { ...base, selectable };
  return {
    ...withSelectable,
    copy: { ...DEFAULT_TURN_COPY, ...options.copy },
    requestCeiling: requestCeiling(withSelectable, { compacts: options.compactor !== undefined }),
  };
}

/** Per-model settings by `providerId/model`, each number checked, naming the model and field. */
function resolveModelSettings(
  settings: Readonly<Record<string, ModelSettings>> | undefined,
): ReadonlyMap<string, ModelSettings> {
  const resolved = new Map<string, ModelSettings>();
  for (const [key, value] of Object.entries(settings ?? {})) {
    const path = `models.settings.${key}`;
    if (typeof value !== 'object' || value === null) {
      throw new OrchestratorConfigError({ message: `${path} must be an object`, path });
    }
    const fields: ModelSettings = {};
    for (const field of MODEL_SETTING_FIELDS) {
      const number = positive(value[field], 0, `${path}.${field}`);
      if (value[field] !== undefined) fields[field] = number;
    }
    resolved.set(key, fields);
  }
  return resolved;
}

const MODEL_SETTING_FIELDS = [
  'contextWindowTokens',
  'maxOutputTokens',
  'firstTokenTimeoutMs',
  'stallTimeoutMs',
] as const satisfies ReadonlyArray<keyof ModelSettings>;

function count(value: number | undefined, fallback: number, path: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) {
    throw new OrchestratorConfigError({ message: `${path} must be a whole number ≥ 0`, path });
  }
  return value;
}

function positive(value: number | undefined, fallback: number, path: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new OrchestratorConfigError({ message: `${path} must be a number > 0`, path });
  }
  return value;
}

function duration(value: number | undefined, fallback: number, path: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) {
    throw new OrchestratorConfigError({ message: `${path} must be a number ≥ 0`, path });
  }
  return value;
}
