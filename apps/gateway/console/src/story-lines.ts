import type { DecisionLabel, TurnEvent } from '@keel/spec';
import { formatDuration, formatTarget } from './format';
import { coolingNotice, triedModel } from './turn-summary';

/** One line of a turn's story as text. */
export interface StoryLine {
  at: number;
  kind: string;
  text: string;
  decision?: DecisionLabel;
}

/**
 * A turn's events as plain sentences, in time order; the attempts known only from the turn's end
 * (targets skipped without a request, the attempt that answered) are placed at their time. At
 * one time, a skip comes before the lines it caused (its decision is stamped the same ms), the
 * rest keep the order they happened in.
 */
export function storyLines(events: readonly TurnEvent[]): StoryLine[] {
  const lines: StoryLine[] = [];
  const insert = (line: StoryLine) => lines.push(line);
  const started = new Map<number, number>();
  const firstOutput = new Set<number>();
  let retryAfter: number | undefined;
  for (const event of events) {
    const line = (kind: string, text: string, decision?: DecisionLabel) =>
      lines.push({ at: event.at, kind, text, ...(decision === undefined ? {} : { decision }) });
    switch (event.type) {
      case 'turn-start':
        line('turn', 'turn started');
        break;
      case 'attempt-start':
        started.set(event.attempt, event.at);
        line(
          'attempt',
          `attempt #${event.attempt} → ${formatTarget(event.target)}${event.probe ? ' (the half-open probe)' : ''}`,
        );
        break;
      case 'model-event':
        if (
          firstOutput.has(event.attempt) ||
          event.event.type === 'usage' ||
          event.event.type === 'finish'
        )
          break;
        firstOutput.add(event.attempt);
        line('token', `attempt #${event.attempt}: first output`);
        break;
      case 'attempt-error':
        retryAfter = event.retryAfterMs;
        line(
          'error',
          `attempt #${event.attempt} failed: ${event.kind}${event.status === undefined ? '' : ` (${event.status})`}${event.retryAfterMs === undefined ? '' : `, retry-after ${formatDuration(event.retryAfterMs)}`}`,
        );
        break;
      case 'discard':
        line('discard', `attempt #${event.attempt}'s streamed text discarded (${event.reason})`);
        break;
      case 'decision':
        line(
          'decision',
          `decision ${event.label} (because ${event.reason})${event.to === undefined || event.label === 'retry_same' ? '' : ` → ${formatTarget(event.to)}`}${event.delayMs === undefined ? '' : `, waiting ${formatDuration(event.delayMs)}${retryAfter === undefined ? '' : ' (retry-after)'}`}`,
          event.label,
        );
        retryAfter = undefined;
        break;
      case 'health': {
        const health = event.event;
        line(
          'health',
          health.type === 'breaker-change'
            ? `breaker ${health.providerId}/${health.model}: ${health.from} → ${health.to} (${health.reason})${health.until === undefined ? '' : ` for ${formatDuration(health.until - event.at)}`}`
            : `profile ${health.providerId}/${health.profileId} cools${health.model === undefined ? '' : ` for ${health.model}`} (${health.kind}) for ${formatDuration(health.until - event.at)}`,
        );
        break;
      }
      case 'compaction': {
        const compaction = event.event;
        if (compaction.type === 'compaction-skipped' || compaction.type === 'compaction-resumed')
          break;
        line(
          'compaction',
          compaction.type === 'compaction-start'
            ? `compaction (${compaction.trigger}) started: ${compaction.tokensBefore} tokens, ${compaction.compactedMessages} messages to summarize`
            : compaction.type === 'compaction-end'
              ? `compaction ${compaction.outcome}${compaction.entry === undefined ? '' : ` by ${compaction.entry.provenance.producerId}: ${compaction.entry.provenance.tokensBefore} → ${compaction.entry.provenance.tokensAfter} tokens`}`
              : compaction.type === 'compaction-fallback'
                ? `compaction: ${compaction.producerId} failed (${compaction.reason}); next ${compaction.nextProducerId ?? 'none'}`
                : compaction.type === 'compaction-retry'
                  ? `compaction: ${compaction.producerId} retries after ${compaction.kind}`
                  : `automatic compaction paused after ${compaction.consecutiveFailures} failures`,
        );
        break;
      }
      case 'binding':
        line(
          'binding',
          event.event.type === 'binding-invalidated'
            ? `CLI session binding invalidated (${event.event.reason})${event.event.orphanedToolUseIds === undefined ? '' : `; ${event.event.orphanedToolUseIds.length} tool calls orphaned`}`
            : `CLI session ${event.event.resumed ? 'resumed' : 'started'}`,
        );
        break;
      case 'tool-run':
        line(
          'tool',
          `tool ${event.name} ran in ${formatDuration(event.durationMs)}${event.isError ? ' and failed' : ''}`,
        );
        break;
      case 'message-queued':
        line('queued', `another message arrived (${event.mode})`);
        break;
      case 'turn-end': {
        for (const record of event.outcome.attempts) {
          if (!record.requestSent) {
            insert({
              at: record.startedAt,
              kind: 'skipped',
              text: `attempt #${record.attempt}: ${formatTarget(record.target)} skipped, no request sent (breaker open or profile cooling${record.retryAfterMs === undefined ? '' : ` for ${formatDuration(record.retryAfterMs)}`})${record.decision === undefined ? '' : ` → ${record.decision}`}`,
            });
            continue;
          }
          if (record.firstTokenMs !== undefined && !firstOutput.has(record.attempt)) {
            // The gateway keeps no text deltas in its recent events: the record has the time.
            insert({
              at: record.startedAt + record.firstTokenMs,
              kind: 'token',
              text: `attempt #${record.attempt}: first output`,
            });
          }
          if (record.outcome === 'ok' && started.has(record.attempt)) {
            insert({
              at: record.endedAt,
              kind: 'ok',
              text: `attempt #${record.attempt} answered`,
            });
          }
        }
        const outcome = event.outcome;
        const model = triedModel(outcome.model, outcome.attempts);
        const cooling = coolingNotice(outcome.kind, outcome.retryAfterMs);
        line(
          'end',
          `turn ended: ${outcome.kind}${outcome.errorKind === undefined ? '' : ` (${outcome.errorKind})`}${model === undefined ? '' : ` · ${model}`}${cooling === undefined ? '' : ` · ${cooling}`}`,
        );
        break;
      }
      default: {
        const unexpected: never = event;
        void unexpected;
      }
    }
  }
  return lines.sort(byTime);
}

/** Time order; at one time a skip first, the rest as they came (the sort is stable). */
function byTime(a: StoryLine, b: StoryLine): number {
  return a.at - b.at || rank(a) - rank(b);
}

function rank(line: StoryLine): number {
  return line.kind === 'skipped' ? 0 : 1;
}
