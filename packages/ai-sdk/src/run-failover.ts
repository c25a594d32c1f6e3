/**
 * The attempt loop of one call: the next candidate, provider health's permit, the attempt, and
 * on failure the classification, the health report and the decision carried out (a backoff, a
 * rotation, a fallback, a wait) — until an attempt succeeds or nothing is left to try. Every
 * attempt but the answering one ends with the decision that explains the next attempt's target.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ErrorClassification } from '@keel/error-classification';
import type { ErrorKind, HealthReport, ModelTarget } from '@keel/spec';
import { type AttemptPlan, createAttemptPlan, moveLabel, targetKey } from './attempt-plan';
import type { AttemptRecord } from './attempt-record';
import { type CallState, emit, report, sleep } from './call-runtime';
import { modelKey } from './candidate-chain';
import { classifyModelError } from './classify-model-error';
import { decide } from './decide';
import { KeelModelError } from './keel-model-error';
import type { KeelDecisionLabel } from './keel-model-options';

/** What the answering attempt produced, and who it was. */
export interface Answer<T> {
  value: T;
  target: ModelTarget;
  model: LanguageModelV4;
  probe: boolean;
  attempt: number;
  record: AttemptRecord;
}

type SkipReason = 'breaker-open' | 'probe-in-flight' | 'profile-cooling';

interface LoopProgress {
  plan: AttemptPlan;
  waits: number;
  last?: { classification: ErrorClassification; error: unknown };
  lastSkip?: SkipReason;
}

export async function runFailover<T>(
  state: CallState,
  attempt: (model: LanguageModelV4, target: ModelTarget) => Promise<T>,
): Promise<Answer<T>> {
  const { runtime, signal } = state;
  const progress: LoopProgress = { plan: createAttemptPlan(runtime.chain, Date.now), waits: 0 };
  for (;;) {
    if (signal?.aborted) throw signal.reason;
    const target = progress.plan.next();
    if (target === undefined) {
      await waitOrEnd(state, progress);
      continue;
    }
    const permit = await runtime.health
      .permit(target, signal === undefined ? {} : { signal })
      .catch(() => ({ allowed: true as const, probe: false }));
    if (!permit.allowed) {
      skip(state, progress, target, permit.reason, permit.waitMs);
      continue;
    }
    const model = modelOf(state, target);
    state.sent += 1;
    const number = state.sent;
    emit(state, { type: 'attempt-start', attempt: number, target, probe: permit.probe });
    let value: T;
    try {
      value = await attempt(model, target);
    } catch (error) {
      await actOnFailure(state, progress, { error, target, attempt: number, probe: permit.probe });
      continue;
    }
    const record: AttemptRecord = { target: targetKey(target), outcome: 'ok' };
    state.attempts.push(record);
    return { value, target, model, probe: permit.probe, attempt: number, record };
  }
}

export function modelOf(state: CallState, target: ModelTarget): LanguageModelV4 {
  const entry = state.runtime.chain.find((model) => model.key === modelKey(target));
  const model = entry?.models.get(target.profileId);
  if (model === undefined) throw new Error(`No model for ${targetKey(target)}.`);
  return model;
}

/** The classification and health report of a failed attempt, as `onEvent` and health see it. */
export async function recordFailure(
  state: CallState,
  failed: { error: unknown; target: ModelTarget; attempt: number; probe: boolean },
  afterFirstPart: boolean,
): Promise<{ classification: ErrorClassification; record: AttemptRecord }> {
  const { target, attempt } = failed;
  const classification = classifyModelError(failed.error, state.signal);
  const { kind, status, retryAfterMs, message } = classification;
  emit(state, {
    type: 'attempt-error',
    attempt,
    target,
    kind,
    ...(status === undefined ? {} : { status }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(message === undefined ? {} : { message }),
    afterFirstPart,
  });
  const longest = classification.cooldownMs ?? retryAfterMs;
  await report(state, {
    type: 'failure',
    target,
    kind,
    probe: failed.probe,
    ...(longest === undefined ? {} : { retryAfterMs: longest }),
  });
  const record: AttemptRecord = {
    target: targetKey(target),
    outcome: 'error',
    kind,
    ...(status === undefined ? {} : { status }),
    ...(longest === undefined ? {} : { retryAfterMs: longest }),
  };
  return { classification, record };
}

async function actOnFailure(
  state: CallState,
  progress: LoopProgress,
  failed: { error: unknown; target: ModelTarget; attempt: number; probe: boolean },
): Promise<void> {
  const { runtime, signal } = state;
  const { target, error } = failed;
  const { classification, record } = await recordFailure(state, failed, false);
  state.attempts.push(record);
  progress.last = { classification, error };
  const giveUps: HealthReport[] = [];
  const decision = decide({
    classification,
    target,
    plan: progress.plan,
    waits: progress.waits,
    settings: runtime.settings,
    random: runtime.random,
    onOverloadGiveUp(retryAfterMs) {
      giveUps.push({
        type: 'overloaded',
        target,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    },
  });
  for (const giveUp of giveUps) await report(state, giveUp);
  const decided = (label: KeelDecisionLabel, extra: { to?: ModelTarget; delayMs?: number }) => {
    record.decision = label;
    if (extra.delayMs !== undefined) record.delayMs = extra.delayMs;
    emit(state, { type: 'decision', label, reason: classification.kind, from: target, ...extra });
  };
  switch (decision.label) {
    case 'retry_same':
      decided('retry_same', { to: target, delayMs: decision.delayMs });
      await sleep(decision.delayMs, signal);
      return;
    case 'rotate_profile':
    case 'fallback_model': {
      const next = progress.plan.next();
      decided(
        next === undefined ? decision.label : moveLabel(target, next),
        next === undefined ? {} : { to: next },
      );
      return;
    }
    case 'wait':
      decided('wait', { delayMs: decision.delayMs });
      progress.waits += 1;
      await sleep(decision.delayMs, signal);
      progress.plan.newPass();
      return;
    case 'exhausted':
      await waitOrEnd(state, progress);
      return;
    case 'final':
      decided('final', {});
      if (decision.outcome === 'aborted') throw signal?.reason ?? error;
      throw endError(state, classification.kind, error, progress.plan.shortestRetry());
  }
}

/**
 * Nothing usable is left in this pass: waits for the shortest cooldown when it is within
 * `retry.maxWaitMs` and waits are left, else ends the call with the last failure.
 */
async function waitOrEnd(state: CallState, progress: LoopProgress): Promise<void> {
  const { settings } = state.runtime;
  const kind: ErrorKind = progress.last?.classification.kind ?? skipKind(progress.lastSkip);
  const last = state.attempts.at(-1);
  const explain = (label: KeelDecisionLabel) => {
    if (last !== undefined && last.outcome !== 'ok' && last.decision === undefined)
      last.decision = label;
  };
  const wait = progress.plan.shortestWait();
  if (wait !== undefined && wait <= settings.maxWaitMs && progress.waits < settings.maxWaits) {
    explain('wait');
    if (last?.decision === 'wait') last.delayMs = wait;
    emit(state, { type: 'decision', label: 'wait', reason: kind, delayMs: wait });
    progress.waits += 1;
    await sleep(wait, state.signal);
    progress.plan.newPass();
    return;
  }
  explain('final');
  emit(state, { type: 'decision', label: 'final', reason: kind });
  throw endError(state, kind, progress.last?.error, progress.plan.shortestRetry());
}

function endError(
  state: CallState,
  kind: ErrorKind,
  cause: unknown,
  retryAfterMs: number | undefined,
): KeelModelError {
  const tried = state.attempts.length;
  return new KeelModelError({
    message: `No candidate answered (${kind}, after ${tried} attempt${tried === 1 ? '' : 's'}).`,
    kind,
    cause,
    attempts: state.attempts,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

function skipKind(reason: SkipReason | undefined): ErrorKind {
  return reason === 'profile-cooling' ? 'rate_limit' : 'overloaded';
}

/**
 * Health holds the target back: nothing is sent; the skip is recorded with the decision that
 * explains where the next attempt goes (when nothing is left, the wait or end that follows does).
 */
function skip(
  state: CallState,
  progress: LoopProgress,
  target: ModelTarget,
  reason: SkipReason,
  waitMs: number,
): void {
  if (reason === 'profile-cooling') progress.plan.blockProfile(target, waitMs);
  else progress.plan.restModel(target, waitMs);
  progress.lastSkip = reason;
  const next = progress.plan.next();
  const label = next === undefined ? undefined : moveLabel(target, next);
  state.attempts.push({
    target: targetKey(target),
    outcome: 'skipped',
    kind: reason,
    retryAfterMs: waitMs,
    ...(label === undefined ? {} : { decision: label }),
  });
  if (label !== undefined) emit(state, { type: 'decision', label, reason, from: target, to: next });
}
