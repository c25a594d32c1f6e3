/**
 * One call's candidate state: which models are given up or resting, which profiles are blocked
 * and until when, retries per target and the one overload rotation per model. The small
 * equivalent of `@keel/orchestrator`'s turn plan (that one is internal to the orchestrator and
 * carries turn-only concerns: compaction, live model switches).
 */
import type { ModelTarget } from '@keel/spec';
import { type ChainModel, modelKey } from './candidate-chain';

export interface AttemptPlan {
  readonly chain: readonly ChainModel[];
  /** The first usable target: first model not given up or resting, first profile not blocked. */
  next(): ModelTarget | undefined;
  /** Gives up on the model for this call; `retryInMs` when it may answer again after a while. */
  dropModel(target: ModelTarget, retryInMs?: number): void;
  /** Sets the model aside for this pass (a transient fault, an open breaker): a wait may bring it back. */
  restModel(target: ModelTarget, afterMs: number): void;
  /** Blocks the profile for this pass; `coolingMs` when it may be tried again after a wait. */
  blockProfile(target: ModelTarget, coolingMs?: number): void;
  hasOtherProfile(target: ModelTarget): boolean;
  hasOtherModel(target: ModelTarget): boolean;
  /** The shortest time until something resting or cooling may be tried again (of one model, when given). */
  shortestWait(modelOf?: ModelTarget): number | undefined;
  /** `shortestWait` with given-up models' known return included: for the caller's `retryAfterMs`. */
  shortestRetry(): number | undefined;
  /** After a wait: rests and blocks whose time has come are lifted. */
  newPass(): void;
  /** The target's `retry_same` count so far, then +1. */
  countRetry(target: ModelTarget): number;
  /** Whether the model already had its one overload rotation (then marks it). */
  takeOverloadRotation(target: ModelTarget): boolean;
}

export function targetKey(target: ModelTarget): string {
  return `${modelKey(target)}#${target.profileId}`;
}

/** The label that names a move truly: same target, another profile of the model, another model. */
export function moveLabel(
  from: ModelTarget,
  to: ModelTarget,
): 'retry_same' | 'rotate_profile' | 'fallback_model' {
  if (modelKey(from) !== modelKey(to)) return 'fallback_model';
  return from.profileId === to.profileId ? 'retry_same' : 'rotate_profile';
}

export function createAttemptPlan(chain: readonly ChainModel[], now: () => number): AttemptPlan {
  const dropped = new Map<string, number | undefined>();
  const resting = new Map<string, number>();
  const blocked = new Map<string, number | undefined>();
  const retries = new Map<string, number>();
  const rotated = new Set<string>();

  const usable = (model: ChainModel, profileId: string) =>
    !blocked.has(targetKey({ ...model, profileId }));
  const available = (model: ChainModel) => !dropped.has(model.key) && !resting.has(model.key);

  function shortest(includeDropped: boolean, modelOf: ModelTarget | undefined) {
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
        if (!available(model)) continue;
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
        known === undefined || until === undefined ? (known ?? until) : Math.min(known, until),
      );
    },
    restModel(target, afterMs) {
      const key = modelKey(target);
      if (!dropped.has(key)) resting.set(key, now() + afterMs);
    },
    blockProfile(target, coolingMs) {
      blocked.set(targetKey(target), coolingMs === undefined ? undefined : now() + coolingMs);
    },
    hasOtherProfile(target) {
      const model = chain.find((candidate) => candidate.key === modelKey(target));
      if (model === undefined) return false;
      return model.profiles.some(
        (profile) => profile !== target.profileId && usable(model, profile),
      );
    },
    hasOtherModel(target) {
      const key = modelKey(target);
      return chain.some(
        (model) =>
          model.key !== key &&
          available(model) &&
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
