import type { CompactionAttempt } from '@keel/spec';
import type { ProduceOutcome, ProduceRequest, Producer } from './producer';
import type { SummaryProblem, SummaryValidation } from './validate-summary';
import { describeSummaryProblems } from './validate-summary';

export type RunProducersResult =
  | { ok: true; summary: string; producerId: string; calls: number }
  | { ok: false };

/** The problems of a produced summary: validation's, and a cut-off the text cannot show. */
function problemsOf(
  outcome: Extract<ProduceOutcome, { ok: true }>,
  validate: (summary: string) => SummaryValidation,
): SummaryProblem[] {
  const validation = validate(outcome.summary);
  const problems = validation.valid ? [] : validation.problems;
  return outcome.cutOff === true ? [{ type: 'cut-off' }, ...problems] : problems;
}

/**
 * Internal: tries producers in order. Each output is validated; a rejected one gets one
 * corrective retry from the same producer. Failed tries are appended to `attempts`.
 * Rejects only on caller abort.
 */
export async function runProducers(
  producers: readonly Producer[],
  request: ProduceRequest,
  validate: (summary: string) => SummaryValidation,
  attempts: CompactionAttempt[],
): Promise<RunProducersResult> {
  for (const [index, producer] of producers.entries()) {
    let calls = 0;
    const record = (outcome: ProduceOutcome): void => {
      if (!outcome.ok) {
        for (const attempt of outcome.attempts) {
          attempts.push({ ...attempt, producerId: producer.id, attempt: calls + attempt.attempt });
        }
      }
      calls += outcome.calls;
    };
    const first = await producer.produce(request);
    record(first);
    if (first.ok) {
      const problems = problemsOf(first, validate);
      if (problems.length === 0) {
        return { ok: true, summary: first.summary, producerId: producer.id, calls };
      }
      const described = describeSummaryProblems(problems);
      attempts.push({
        producerId: producer.id,
        attempt: calls,
        reason: `invalid summary: ${described}`,
      });
      const corrected = await producer.produce({
        ...request,
        correction: { rejectedSummary: first.summary, problems: described },
      });
      record(corrected);
      if (corrected.ok) {
        const remaining = problemsOf(corrected, validate);
        if (remaining.length === 0) {
          return { ok: true, summary: corrected.summary, producerId: producer.id, calls };
        }
        attempts.push({
          producerId: producer.id,
          attempt: calls,
          reason: `invalid summary after correction: ${describeSummaryProblems(remaining)}`,
        });
      }
    }
    request.emit({
      type: 'compaction-fallback',
      sessionId: request.sessionId,
      producerId: producer.id,
      nextProducerId: producers[index + 1]?.id ?? null,
      reason: attempts[attempts.length - 1]?.reason ?? 'failed',
    });
  }
  return { ok: false };
}
