import type { ModelTarget } from '@keel/spec';
import { type ChainModel, modelKey } from './model-chain';

/** Where the next attempt goes, what is used up, and what is cooling: one turn's candidate state. */
export interface AttemptPlan {
  /** The first usable target: first model not given up, first profile not blocked. */
  next(): ModelTarget | undefined;
  /**
   * Gives up on the target's model for this turn (`fallback_model`); `retryInMs` when it is known
   * to be usable again after a while (a long `retry-after`), for the turn's `retryAfterMs`.
   */
  dropModel(target: Pick<ModelTarget, 'providerId' | 'model'>, retryInMs?: number): void;
  /**
   * Gives up on the target's model for this pass only: a transient fault (overload, server
   * error, reset) may clear, so after a wait of `afterMs` (the next pass) it is a candidate again.
   */
  restModel(target: Pick<ModelTarget, 'providerId' | 'model'>, afterMs: number): void;
  /** Skips the model for this pass only (its breaker is open; it may be tried after a wait). */
  skipModel(target: ModelTarget, waitMs: number): void;
  /** Blocks the target's profile for this pass; `coolingMs` when it may be tried again later. */
  blockProfile(target: ModelTarget, coolingMs?: number): void;
  /** Whether another profile of the target's model is still usable this pass. */
  hasOtherProfile(target: ModelTarget): boolean;
  /** Whether another model (not given up, not skipped) with a usable profile is left this pass. */
  hasOtherModel(target: ModelTarget): boolean;
  /** The shortest time until something skipped or cooling in this pass may be tried again. */
  shortestWait(modelOf?: ModelTarget): number | undefined;
  /** `shortestWait`, given-up models included: how long the caller should wait before trying again. */
  shortestRetry(): number | undefined;
  /** After a wait: skips and blocks whose time has come are lifted; given-up models stay given up. */
  newPass(): void;
  /** `retry_same` count of a target, then +1. */
  countRetry(target: ModelTarget): number;
  /** Whether the model already had its one overload rotation (then marks it). */
  takeOverloadRotation(target: ModelTarget): boolean;
  readonly chain: readonly ChainModel[];
}

/** `providerId/model#profileId`. */
export function targetKey(target: ModelTarget): string {
  return `${target.providerId}/${target.model}#${target.profileId}`;
}

/**
 * The label that truly names a move from one target to the next: the same target is
 * `retry_same`, another profile of the same model `rotate_profile`, another model `fallback_model`.
 */
export function moveLabel(
  from: ModelTarget,
  to: ModelTarget,
): 'retry_same' | 'rotate_profile' | 'fallback_model' {
  if (modelKey(from) !== modelKey(to)) return 'fallback_model';
  return from.profileId === to.profileId ? 'retry_same' : 'rotate_profile';
}

export function createAttemptPlan(chain: readonly ChainModel[], now: () => number): AttemptPlan {
  const dropped = new Map<string, number | undefined>();
  /** Models resting for this pass: a candidate again once their time has come. */
  const resting = new Map<string, number>();
  const skipped = new Map<string, number>();
  const blocked = new Map<string, number | undefined>();
  const retries = new Map<string, number>();
  const rotated = new Set<string>();

  const usable = (model: ChainModel, profileId: string) =>
    !blocked.has(targetKey({ providerId: model.providerId, model: model.model, profileId }));

  function shortest(includeDropped: boolean, modelOf: ModelTarget | undefined): number | undefined {
    const at = now();
    let result: number | undefined;
    const consider = (until: number | undefined) => {
      if (until === undefined) return;
      const wait = Math.max(0, until - at);
      result = result === undefined ? wait : Math.min(result, wait);
    };
    for (const model of chain) {
      if (modelOf !== undefined && model.key !== modelKey(modelOf)) continue;
      if (dropped.has(model.key)) {
        if (!includeDropped) continue;
        consider(dropped.get(model.key));
      }
      consider(skipped.get(model.key));
      consider(resting.get(model.key));
      for (const profileId of model.profiles)
        consider(blocked.get(targetKey({ ...model, profileId })));
    }
    return result;
  }

  return {
    chain,
    next() {
      for (const model of chain) {
        if (dropped.has(model.key) || skipped.has(model.key) || resting.has(model.key)) continue;
        const profileId = model.profiles.find((profile) => usable(model, profile));
        if (profileId !== undefined)
          return { providerId: model.providerId, profileId, model: model.model };
      }
      return undefined;
    },
    dropModel(target, retryInMs) {
      const key = modelKey(target);
      const until = retryInMs === undefined ? undefined : now() + retryInMs;
      const known = dropped.get(key);
      dropped.set(
        key,
        known === undefined ? until : until === undefined ? known : Math.min(known, until),
      );
    },
    restModel(target, afterMs) {
      const key = modelKey(target);
      if (!dropped.has(key)) resting.set(key, now() + afterMs);
    },
    skipModel(target, waitMs) {
      skipped.set(modelKey(target), now() + waitMs);
    },
    blockProfile(target, coolingMs) {
      blocked.set(targetKey(target), coolingMs === undefined ? undefined : now() + coolingMs);
    },
    hasOtherProfile(target) {
      const model = chain.find((candidate) => candidate.key === modelKey(target));
      const others = model?.profiles.filter((profile) => profile !== target.profileId) ?? [];
      return model !== undefined && others.some((profile) => usable(model, profile));
    },
    hasOtherModel(target) {
      const key = modelKey(target);
      return chain.some(
        (model) =>
          model.key !== key &&
          !dropped.has(model.key) &&
          !skipped.has(model.key) &&
          !resting.has(model.key) &&
          model.profiles.some((profile) => usable(model, profile)),
      );
    },
    shortestWait(modelOf) {
      return shortest(false, modelOf);
    },
    shortestRetry() {
      return shortest(true, undefined);
    },
    newPass() {
      const at = now();
      for (const [key, until] of skipped) if (until <= at) skipped.delete(key);
      for (const [key, until] of resting) if (until <= at) resting.delete(key);
      for (const [key, until] of blocked)
        if (until !== undefined && until <= at) blocked.delete(key);
    },
    countRetry(target) {
      const key = targetKey(target);
      const count = retries.get(key) ?? 0;
      retries.set(key, count + 1);
      return count;
    },
    takeOverloadRotation(target) {
      const key = modelKey(target);
      if (rotated.has(key)) return true;
      rotated.add(key);
      return false;
    },
  };
}
