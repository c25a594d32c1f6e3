// A turn's attempt records arrive with its end and are the truth about its attempts; the events
// seen live are matched to them here, skipped targets included, so each row explains itself.
import type { AttemptRecord, ModelTarget } from '@keel/spec';
import type { AttemptStory, Decision, TurnMark, TurnStory } from './build-turn-stories';

/**
 * Folds the turn-end records into the story: times, first token, usage, and the targets skipped
 * without a request. A skipped attempt takes the decision event that named it as `from` (its
 * reason and its next target); that event then leaves the loose marks.
 */
export function mergeRecords(story: TurnStory, records: readonly AttemptRecord[]): void {
  for (const record of records) {
    let attempt = attemptOf(story, record.attempt);
    if (attempt === undefined) {
      attempt = {
        attempt: record.attempt,
        target: record.target,
        probe: record.probe,
        startedAt: record.startedAt,
        requestSent: record.requestSent,
        outcome: record.outcome,
        discarded: false,
      };
      story.attempts.push(attempt);
    }
    attempt.startedAt = record.startedAt;
    attempt.endedAt = record.endedAt;
    attempt.requestSent = record.requestSent;
    attempt.outcome = record.outcome;
    if (record.firstTokenMs !== undefined) attempt.firstTokenMs = record.firstTokenMs;
    if (record.usage !== undefined) attempt.usage = record.usage;
    if (record.outcome === 'skipped') {
      if (record.retryAfterMs !== undefined) attempt.coolingMs = record.retryAfterMs;
      claimSkipDecision(story, attempt);
    } else if (record.errorKind !== undefined && attempt.error === undefined) {
      attempt.error = {
        kind: record.errorKind,
        ...(record.status === undefined ? {} : { status: record.status }),
        ...(record.retryAfterMs === undefined ? {} : { retryAfterMs: record.retryAfterMs }),
      };
    }
    if (record.decision !== undefined && attempt.decision === undefined)
      attempt.decision = {
        label: record.decision,
        ...(record.errorKind === undefined ? {} : { reason: record.errorKind }),
      };
  }
  story.attempts.sort((a, b) => a.attempt - b.attempt);
}

/** The first loose decision from the skipped target, at or after the skip. */
function claimSkipDecision(story: TurnStory, attempt: AttemptStory): void {
  const index = story.marks.findIndex(
    (mark: TurnMark) =>
      mark.decision?.from !== undefined &&
      mark.at >= attempt.startedAt &&
      sameTarget(mark.decision.from, attempt.target),
  );
  const event: Decision | undefined = story.marks[index]?.decision;
  if (event === undefined) return;
  story.marks.splice(index, 1);
  attempt.decision = {
    label: event.label,
    reason: event.reason,
    ...(event.to === undefined ? {} : { to: event.to }),
    ...(event.delayMs === undefined ? {} : { delayMs: event.delayMs }),
  };
}

export function attemptOf(story: TurnStory, attempt: number): AttemptStory | undefined {
  return story.attempts.find((candidate) => candidate.attempt === attempt);
}

export function sameTarget(a: ModelTarget, b: ModelTarget): boolean {
  return a.providerId === b.providerId && a.profileId === b.profileId && a.model === b.model;
}
