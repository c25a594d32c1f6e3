/**
 * Turns the user's candidates and profiles into the chain a call walks: one entry per distinct
 * provider and model, each with the models (one per API key) that reach it.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ModelTarget } from '@keel/spec';
import { KeelModelConfigError } from './keel-model-error';
import type { KeelModelOptions } from './keel-model-options';

export const PRIMARY_PROFILE = 'primary';

export interface ChainModel {
  /** `providerId/model`. */
  key: string;
  providerId: string;
  model: string;
  /** Profile ids in rotation order, `primary` first. */
  profiles: string[];
  models: Map<string, LanguageModelV4>;
}

/**
 * The provider as health knows it: `anthropic.messages` and `openai.chat` are `anthropic` and
 * `openai`, so a key that fails authentication cools for every API of its provider.
 */
export function providerIdOf(model: LanguageModelV4): string {
  return model.provider.split('.')[0] || model.provider;
}

export function modelKey(target: Pick<ModelTarget, 'providerId' | 'model'>): string {
  return `${target.providerId}/${target.model}`;
}

export function buildChain(options: KeelModelOptions): ChainModel[] {
  if (options.candidates.length === 0) {
    throw new KeelModelConfigError({ message: 'createKeelModel needs at least one candidate.' });
  }
  const chain: ChainModel[] = [];
  for (const candidate of options.candidates) {
    checkSpecification(candidate);
    const providerId = providerIdOf(candidate);
    const key = modelKey({ providerId, model: candidate.modelId });
    if (chain.some((entry) => entry.key === key)) {
      throw new KeelModelConfigError({
        message: `Candidate ${key} is listed twice; give its other keys under profiles.`,
      });
    }
    chain.push({
      key,
      providerId,
      model: candidate.modelId,
      profiles: [PRIMARY_PROFILE],
      models: new Map([[PRIMARY_PROFILE, candidate]]),
    });
  }
  for (const [profileId, models] of Object.entries(options.profiles ?? {})) {
    if (profileId === PRIMARY_PROFILE) {
      throw new KeelModelConfigError({
        message: `Profile id "${PRIMARY_PROFILE}" names the candidates themselves; choose another.`,
      });
    }
    for (const model of models) {
      checkSpecification(model);
      const key = modelKey({ providerId: providerIdOf(model), model: model.modelId });
      const entry = chain.find((candidate) => candidate.key === key);
      if (entry === undefined) {
        throw new KeelModelConfigError({
          message: `Profile "${profileId}" has ${key}, which is not a candidate.`,
        });
      }
      if (entry.models.has(profileId)) {
        throw new KeelModelConfigError({
          message: `Profile "${profileId}" has ${key} twice.`,
        });
      }
      entry.profiles.push(profileId);
      entry.models.set(profileId, model);
    }
  }
  return chain;
}

function checkSpecification(model: LanguageModelV4): void {
  if ((model as { specificationVersion?: unknown }).specificationVersion !== 'v4') {
    throw new KeelModelConfigError({
      message: `Model ${String(model.modelId)} implements specification ${String(
        (model as { specificationVersion?: unknown }).specificationVersion,
      )}; createKeelModel takes v4 language models (ai 7).`,
    });
  }
}
