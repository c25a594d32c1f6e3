/**
 * How the failover scorecard turns what a scenario observed into pass / partial / safe / fail,
 * the way an independent fault-injecting scorecard does: rescue first (the complete answer, or
 * for a content-filter rejection a clean error), then the conduct checks.
 */

import type { Check, Observation, Verdict } from './failover-scenario';
import type { RecordedAttempt } from './gateway-turn';

export function verdictOf(
  ideal: 'answer' | 'error',
  observation: Observation,
  checks: readonly Check[],
): { verdict: Verdict; why: string } {
  const { turn } = observation;
  const story =
    observation.attempts === undefined ? requestStory(observation) : storyOf(observation.attempts);
  if (turn === undefined) {
    return {
      verdict: 'fail',
      why: observation.failure ?? `no outcome within ${seconds(observation.limitMs)}`,
    };
  }
  const { answer } = turn;
  const complete = answer.outcome === 'reply' && answer.text === observation.reply;
  const required = checks
    .filter((check) => !check.ok && check.required)
    .map((check) => check.detail);
  const advisory = checks
    .filter((check) => !check.ok && !check.required)
    .map((check) => check.detail);
  const clearError = answer.outcome === 'error' && answer.errorKind !== undefined;
  if (answer.outcome === 'reply' && !complete) {
    const why = `a truncated answer presented as success (${answer.text.length} of ${observation.reply.length} characters)`;
    return { verdict: 'fail', why: `${why}; ${story}` };
  }
  if (answer.outcome === 'reply' && turn.shown !== answer.text) {
    return {
      verdict: 'fail',
      why: `the stream left the client showing other text than the answer; ${story}`,
    };
  }
  if (required.length > 0) return { verdict: 'fail', why: `${required.join('; ')}; ${story}` };
  const rescued = ideal === 'answer' ? complete : clearError;
  if (rescued) {
    if (advisory.length > 0) return { verdict: 'partial', why: `${advisory.join('; ')}; ${story}` };
    return { verdict: 'pass', why: story };
  }
  if (ideal === 'error' && complete) {
    return { verdict: 'partial', why: `answered by routing around the rejection; ${story}` };
  }
  if (clearError) return { verdict: 'safe', why: `a clear error (${answer.errorKind}); ${story}` };
  return { verdict: 'fail', why: `${answer.outcome} without a clear error; ${story}` };
}

/** The turn's attempts in one line: `primary: server_error → retry_same; primary: ok`. */
export function storyOf(attempts: readonly RecordedAttempt[]): string {
  if (attempts.length === 0) return 'no attempts recorded';
  return attempts
    .map((attempt) => {
      const side = attempt.target.model.endsWith('-fallback') ? 'fallback' : 'primary';
      const what =
        attempt.outcome === 'ok'
          ? 'ok'
          : attempt.outcome === 'skipped'
            ? 'skipped'
            : (attempt.errorKind ?? 'error');
      return `${side}: ${what}${attempt.decision === undefined ? '' : ` → ${attempt.decision}`}`;
    })
    .join('; ');
}

/**
 * Through a stateless API the client reads no attempts: the provider's log tells the story
 * instead, one request at a time with the behaviour that answered it (`primary: http-error;
 * fallback: ok`).
 */
export function requestStory(observation: Observation): string {
  const log = [...observation.primary, ...observation.fallback].sort(
    (a, b) => a.receivedAt - b.receivedAt,
  );
  if (log.length === 0) return 'no provider request';
  return log
    .map(
      (entry) => `${entry.model.endsWith('-fallback') ? 'fallback' : 'primary'}: ${entry.behavior}`,
    )
    .join('; ');
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
