/**
 * The conduct checks of the failover scorecard, each a small function over what a scenario
 * observed: request counts per model, gaps between requests, prefill, truthful decisions, the
 * model named and the usage reported.
 */

import type { Check, Observation } from './failover-scenario';
import type { RecordedAttempt } from './gateway-turn';

/** Requests the provider saw on `side` lie within `[min, max]`. */
export function requests(
  observation: Observation,
  side: 'primary' | 'fallback',
  range: [number, number],
  options: { required: boolean; why: string },
): Check {
  const seen = observation[side].length;
  const [min, max] = range;
  const expected = min === max ? String(min) : `${min}–${max}`;
  return {
    ok: seen >= min && seen <= max,
    required: options.required,
    detail: `${options.why}: ${seen} ${side} requests (expected ${expected})`,
  };
}

/** When the primary got a second request, it came at least `ms` after the first. */
export function gapAtLeast(observation: Observation, ms: number, why: string): Check {
  const [first, second] = observation.primary;
  const gap =
    first !== undefined && second !== undefined ? second.receivedAt - first.receivedAt : ms;
  return {
    ok: gap >= ms,
    required: true,
    detail: `${why}: the retry came ${gap} ms after the 429`,
  };
}

/** No request that ends with the assistant's message (Keel never prefills). */
export function noPrefill(observation: Observation): Check {
  const prefills = [...observation.primary, ...observation.fallback].filter(
    (entry) => entry.prefill,
  );
  return {
    ok: prefills.length === 0,
    required: true,
    detail: `${prefills.length} prefill request(s) (a continuation of the cut answer)`,
  };
}

/** The same oversized request was never sent to the same model twice. */
export function noSameSizeResend(observation: Observation): Check {
  const sizes = observation.primary.map((entry) => entry.promptChars);
  const repeated = sizes.some((size, index) => index > 0 && size >= (sizes[index - 1] ?? 0));
  return {
    ok: !repeated,
    required: true,
    detail: `the oversized request went to the primary again unchanged (${sizes.join(', ')} characters)`,
  };
}

/**
 * Every attempt but the last carries a decision, and each decision fits the next attempt's
 * target: `fallback_model` another model, `rotate_profile` the same model on another key,
 * `retry_same` the same target. Through a stateless API (`undefined`: no record a client can
 * read) it checks nothing; the row's method says so.
 */
export function decisionsTruthful(attempts: readonly RecordedAttempt[] | undefined): Check {
  if (attempts === undefined) return { ok: true, required: false, detail: '' };
  const problems: string[] = [];
  if (attempts.length === 0) problems.push('no attempts recorded');
  attempts.forEach((attempt, index) => {
    const next = attempts[index + 1];
    if (next === undefined) return;
    const label = attempt.decision;
    if (label === undefined) {
      problems.push(`attempt ${attempt.attempt} (${attempt.outcome}) has no decision`);
      return;
    }
    const sameModel =
      next.target.providerId === attempt.target.providerId &&
      next.target.model === attempt.target.model;
    const sameProfile = sameModel && next.target.profileId === attempt.target.profileId;
    if (label === 'fallback_model' && sameModel)
      problems.push(`attempt ${attempt.attempt}: fallback_model, same model next`);
    if (label === 'rotate_profile' && (!sameModel || sameProfile))
      problems.push(`attempt ${attempt.attempt}: rotate_profile, not another key of the model`);
    if (label === 'retry_same' && !sameProfile)
      problems.push(`attempt ${attempt.attempt}: retry_same, another target next`);
  });
  return { ok: problems.length === 0, required: true, detail: `decisions: ${problems.join('; ')}` };
}

/** The outcome names the model that answered. */
export function namesModel(observation: Observation, reference: string): Check {
  const model = observation.turn?.answer.model;
  return {
    ok: model === reference,
    required: true,
    detail: `the outcome names ${model ?? 'no model'}, not ${reference} which answered`,
  };
}

/** The outcome carries token usage. */
export function usagePresent(observation: Observation, required: boolean): Check {
  const usage = observation.turn?.answer.usage;
  return {
    ok: usage !== undefined && (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0) > 0,
    required,
    detail: 'no usage on the outcome',
  };
}

/** A healthy message through the same gateway afterwards got the complete answer. */
export function aliveAfter(observation: Observation): Check {
  return {
    ok: observation.alive === true,
    required: true,
    detail: 'the next healthy message was not answered',
  };
}
