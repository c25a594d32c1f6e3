import type {
  DecisionLabel,
  ErrorKind,
  ModelTarget,
  TurnEvent,
  TurnOutcome,
  Usage,
} from '@keel/spec';
import { attemptOf, mergeRecords, sameTarget } from './merge-attempt-records';

export type Decision = Extract<TurnEvent, { type: 'decision' }>;

/** One model call of a turn, as drawn on its timeline. */
export interface AttemptStory {
  attempt: number;
  target: ModelTarget;
  probe: boolean;
  /** Clock ms. */
  startedAt: number;
  /** Absent while it runs. */
  endedAt?: number;
  firstTokenMs?: number;
  requestSent: boolean;
  outcome: 'ok' | 'error' | 'skipped' | 'running';
  error?: { kind: ErrorKind; status?: number; retryAfterMs?: number; message?: string };
  decision?: AttemptDecision;
  /** A skipped attempt: how long its target was still cooling (breaker open or profile cooling). */
  coolingMs?: number;
  /** What the provider reported it consumed. */
  usage?: Usage;
  /** Text it streamed was voided (a retry or fallback follows). */
  discarded: boolean;
}

/** The decision taken after an attempt; `reason` is unknown when only the turn's record told it. */
export interface AttemptDecision {
  label: DecisionLabel;
  reason?: Decision['reason'];
  to?: ModelTarget;
  delayMs?: number;
}

/** A wait before the next attempt (a backoff, `retry-after`, or the shortest cooldown). */
export interface WaitStory {
  at: number;
  delayMs: number;
  label: DecisionLabel;
  reason: Decision['reason'];
  /** The attempt before it failed with a `retry-after`, which the wait honours. */
  retryAfter: boolean;
}

export interface CompactionStory {
  startedAt: number;
  endedAt?: number;
  trigger: string;
  outcome?: string;
  tokensBefore?: number;
  tokensAfter?: number;
  producerId?: string;
}

/** Anything else that happened in the turn, at a point in time. */
export interface TurnMark {
  at: number;
  kind: 'decision' | 'health' | 'binding' | 'discard' | 'tool' | 'queued' | 'compaction';
  /** Plain text, e.g. `breaker backup/gpt → open (overloaded)`. */
  text: string;
  /** For `decision` marks: the label. */
  label?: DecisionLabel;
  /** For `decision` marks: the decision event, until an attempt of the turn's record claims it. */
  decision?: Decision;
}

/** Everything the console knows of one turn, from its events. */
export interface TurnStory {
  turnId: string;
  sessionId: string;
  messageId?: string;
  startedAt: number;
  endedAt?: number;
  outcome?: TurnOutcome;
  attempts: AttemptStory[];
  waits: WaitStory[];
  compactions: CompactionStory[];
  marks: TurnMark[];
  /** The turn's own events, in the order they happened. */
  events: TurnEvent[];
}

/** Groups a session's turn events into turn stories, in the order the turns started. */
export function buildTurnStories(events: readonly TurnEvent[]): TurnStory[] {
  const stories = new Map<string, TurnStory>();
  const storyOf = (event: TurnEvent): TurnStory => {
    let story = stories.get(event.turnId);
    if (story === undefined) {
      story = {
        turnId: event.turnId,
        sessionId: event.sessionId,
        startedAt: event.at,
        attempts: [],
        waits: [],
        compactions: [],
        marks: [],
        events: [],
      };
      stories.set(event.turnId, story);
    }
    return story;
  };
  for (const event of events) {
    const story = storyOf(event);
    story.events.push(event);
    apply(story, event);
  }
  return [...stories.values()];
}

function apply(story: TurnStory, event: TurnEvent): void {
  switch (event.type) {
    case 'turn-start':
      story.startedAt = Math.min(story.startedAt, event.at);
      story.messageId = event.messageId;
      return;
    case 'attempt-start':
      story.attempts.push({
        attempt: event.attempt,
        target: event.target,
        probe: event.probe,
        startedAt: event.at,
        requestSent: true,
        outcome: 'running',
        discarded: false,
      });
      return;
    case 'model-event': {
      const attempt = attemptOf(story, event.attempt);
      if (attempt !== undefined && attempt.firstTokenMs === undefined && isOutput(event.event.type))
        attempt.firstTokenMs = event.at - attempt.startedAt;
      return;
    }
    case 'attempt-error': {
      const attempt = attemptOf(story, event.attempt);
      if (attempt === undefined) return;
      attempt.outcome = 'error';
      attempt.endedAt = event.at;
      attempt.error = {
        kind: event.kind,
        ...(event.status === undefined ? {} : { status: event.status }),
        ...(event.retryAfterMs === undefined ? {} : { retryAfterMs: event.retryAfterMs }),
        ...(event.message === undefined ? {} : { message: event.message }),
      };
      return;
    }
    case 'discard': {
      const attempt = attemptOf(story, event.attempt);
      if (attempt !== undefined) attempt.discarded = true;
      story.marks.push({
        at: event.at,
        kind: 'discard',
        text: `attempt #${event.attempt}'s text discarded (${event.reason})`,
      });
      return;
    }
    case 'decision':
      applyDecision(story, event);
      return;
    case 'health':
      story.marks.push({ at: event.at, kind: 'health', text: describeHealth(event.event) });
      return;
    case 'compaction':
      applyCompaction(story, event);
      return;
    case 'binding':
      story.marks.push({
        at: event.at,
        kind: 'binding',
        text:
          event.event.type === 'binding-invalidated'
            ? `CLI binding invalidated (${event.event.reason})${event.event.orphanedToolUseIds?.length ? `, ${event.event.orphanedToolUseIds.length} orphaned tool calls` : ''}`
            : `CLI session ${event.event.resumed ? 'resumed' : 'started'}`,
      });
      return;
    case 'tool-run':
      story.marks.push({
        at: event.at,
        kind: 'tool',
        text: `tool ${event.name} ran in ${event.durationMs} ms${event.isError ? ' (error)' : ''}`,
      });
      return;
    case 'message-queued':
      story.marks.push({ at: event.at, kind: 'queued', text: `a message arrived (${event.mode})` });
      return;
    case 'turn-end':
      story.endedAt = event.at;
      story.outcome = event.outcome;
      mergeRecords(story, event.outcome.attempts);
      return;
    default:
      assertNever(event);
  }
}

function applyDecision(story: TurnStory, event: Decision): void {
  const decision = {
    label: event.label,
    reason: event.reason,
    ...(event.to === undefined ? {} : { to: event.to }),
    ...(event.delayMs === undefined ? {} : { delayMs: event.delayMs }),
  };
  const failed = [...story.attempts]
    .reverse()
    .find((candidate) => candidate.outcome === 'error' && candidate.decision === undefined);
  const attempt =
    failed !== undefined && event.from !== undefined && sameTarget(failed.target, event.from)
      ? failed
      : undefined;
  if (attempt !== undefined) attempt.decision = decision;
  else
    story.marks.push({
      at: event.at,
      kind: 'decision',
      text: `${event.label} (${event.reason})`,
      label: event.label,
      decision: event,
    });
  if (event.delayMs !== undefined && event.delayMs > 0) {
    story.waits.push({
      at: event.at,
      delayMs: event.delayMs,
      label: event.label,
      reason: event.reason,
      // The orchestrator honours a retry-after (within its limits) when the error carried one.
      retryAfter: attempt?.error?.retryAfterMs !== undefined,
    });
  }
}

function applyCompaction(
  story: TurnStory,
  event: Extract<TurnEvent, { type: 'compaction' }>,
): void {
  const compaction = event.event;
  switch (compaction.type) {
    case 'compaction-start':
      story.compactions.push({
        startedAt: event.at,
        trigger: compaction.trigger,
        tokensBefore: compaction.tokensBefore,
      });
      return;
    case 'compaction-end': {
      const open = [...story.compactions].reverse().find((c) => c.endedAt === undefined);
      const target = open ?? { startedAt: event.at, trigger: compaction.trigger };
      if (open === undefined) story.compactions.push(target);
      target.endedAt = event.at;
      target.outcome = compaction.outcome;
      if (compaction.entry !== undefined) {
        target.tokensAfter = compaction.entry.provenance.tokensAfter;
        target.producerId = compaction.entry.provenance.producerId;
      }
      return;
    }
    case 'compaction-fallback':
      story.marks.push({
        at: event.at,
        kind: 'compaction',
        text: `compaction: ${compaction.producerId} failed (${compaction.reason}), next ${compaction.nextProducerId ?? 'none'}`,
      });
      return;
    case 'compaction-retry':
      story.marks.push({
        at: event.at,
        kind: 'compaction',
        text: `compaction: ${compaction.producerId} retries after ${compaction.kind}`,
      });
      return;
    case 'compaction-paused':
      story.marks.push({ at: event.at, kind: 'compaction', text: 'automatic compaction paused' });
      return;
    default:
      return; // skipped and resumed: nothing to draw
  }
}

function isOutput(type: string): boolean {
  return (
    type === 'text-delta' || type === 'tool-call' || type === 'refusal' || type === 'tool-result'
  );
}

function describeHealth(event: Extract<TurnEvent, { type: 'health' }>['event']): string {
  if (event.type === 'breaker-change')
    return `breaker ${event.providerId}/${event.model}: ${event.from} → ${event.to} (${event.reason})`;
  return `profile ${event.providerId}/${event.profileId}${event.model === undefined ? '' : ` (${event.model})`} cooling: ${event.kind}`;
}

function assertNever(value: never): never {
  throw new Error(`Unexpected turn event ${JSON.stringify(value)}`);
}
