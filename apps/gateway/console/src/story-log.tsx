import type { DecisionLabel } from '@keel/spec';
import type { TurnStory } from './build-turn-stories';
import { formatDuration, formatTarget } from './format';

interface Line {
  at: number;
  text: string;
  kind: string;
  decision?: DecisionLabel;
}

/** The turn's story as text, in time order, each line at its offset from the turn's start. */
export function StoryLog({ story }: { story: TurnStory }) {
  const lines = linesOf(story);
  return (
    <details class="story-log" open={story.endedAt === undefined || lines.length <= 12}>
      <summary>The turn's story ({lines.length} events)</summary>
      <ol>
        {lines.map((line, index) => (
          <li
            key={index}
            class={`line line-${line.kind}`}
            {...(line.decision === undefined ? {} : { 'data-log-decision': line.decision })}
          >
            <span class="offset">+{formatDuration(line.at - story.startedAt)}</span> {line.text}
          </li>
        ))}
      </ol>
    </details>
  );
}

function linesOf(story: TurnStory): Line[] {
  const lines: Line[] = [{ at: story.startedAt, kind: 'turn', text: 'turn started' }];
  for (const attempt of story.attempts) {
    lines.push({
      at: attempt.startedAt,
      kind: 'attempt',
      text: attempt.requestSent
        ? `attempt #${attempt.attempt} → ${formatTarget(attempt.target)}${attempt.probe ? ' (probe)' : ''}`
        : `attempt #${attempt.attempt}: ${formatTarget(attempt.target)} skipped (breaker open or profile cooling)`,
    });
    if (attempt.firstTokenMs !== undefined)
      lines.push({
        at: attempt.startedAt + attempt.firstTokenMs,
        kind: 'token',
        text: `attempt #${attempt.attempt}: first token`,
      });
    if (attempt.error !== undefined && attempt.endedAt !== undefined)
      lines.push({
        at: attempt.endedAt,
        kind: 'error',
        text: `attempt #${attempt.attempt} failed: ${attempt.error.kind}${attempt.error.status === undefined ? '' : ` (${attempt.error.status})`}${attempt.error.retryAfterMs === undefined ? '' : `, retry-after ${formatDuration(attempt.error.retryAfterMs)}`}`,
      });
    else if (attempt.outcome === 'ok' && attempt.endedAt !== undefined)
      lines.push({ at: attempt.endedAt, kind: 'ok', text: `attempt #${attempt.attempt} answered` });
  }
  for (const decision of story.decisions)
    lines.push({
      at: decision.at,
      kind: 'decision',
      text: `decision ${decision.label} (because ${decision.reason})`,
      decision: decision.label,
    });
  for (const wait of story.waits)
    lines.push({
      at: wait.at,
      kind: 'wait',
      text: `wait ${formatDuration(wait.delayMs)}${wait.retryAfter ? ' (retry-after)' : ''}`,
    });
  for (const compaction of story.compactions)
    lines.push({
      at: compaction.startedAt,
      kind: 'compaction',
      text: `compaction (${compaction.trigger}) ${compaction.outcome ?? 'running'}`,
    });
  for (const mark of story.marks)
    if (mark.kind !== 'decision') lines.push({ at: mark.at, kind: mark.kind, text: mark.text });
  if (story.endedAt !== undefined && story.outcome !== undefined)
    lines.push({
      at: story.endedAt,
      kind: 'end',
      text: `turn ended: ${story.outcome.kind}${story.outcome.errorKind === undefined ? '' : ` (${story.outcome.errorKind})`}${story.outcome.model === undefined ? '' : ` · ${story.outcome.model}`}`,
    });
  return lines.sort((a, b) => a.at - b.at);
}
