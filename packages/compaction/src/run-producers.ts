import type { CompactionAttempt } from '@keel/spec';
import type { ProduceOutcome, ProduceRequest, Producer } from './producer';
import type { SummaryValidation } from './validate-summary';
import { describeSummaryProblems } from './validate-summary';

export type RunProducersResult =
  | { ok: true; summary: string; producerId: string; calls: number }
  | { ok: false };

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
      const validation = validate(first.summary);
      if (validation.valid) {
        return { ok: true, summary: first.summary, producerId: producer.id, calls };
      }
      const problems = describeSummaryProblems(validation.problems);
      attempts.push({
        producerId: producer.id,
        attempt: calls,
        reason: `invalid summary: ${problems}`,
      });
      const corrected = await producer.produce({
        ...request,
        correction: { rejectedSummary: first.summary, problems },
      });
      record(corrected);
      if (corrected.ok) {
        const second = validate(corrected.summary);
        if (second.valid) {
          return { ok: true, summary: corrected.summary, producerId: producer.id, calls };
        }
        attempts.push({
          producerId: producer.id,
          attempt: calls,
          reason: `invalid summary after correction: ${describeSummaryProblems(second.problems)}`,
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
