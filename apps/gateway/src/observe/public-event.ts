import type { CompactionEvent, TurnEvent } from '@keel/spec';

/**
 * A turn event as the HTTP API and the console may show it: without the provider's own words.
 * An attempt error keeps its kind, status and wait but not its message; a compaction reason
 * keeps its label (`timeout`, `invalid summary`, `rate_limit`…) but not the text after it. The
 * full, sanitized story stays in the logs.
 */
export function publicEvent(event: TurnEvent): TurnEvent {
  if (event.type === 'attempt-error') {
    const { message: _message, ...rest } = event;
    return rest;
  }
  if (event.type === 'compaction') return { ...event, event: publicCompaction(event.event) };
  return event;
}

function publicCompaction(event: CompactionEvent): CompactionEvent {
  switch (event.type) {
    case 'compaction-fallback':
      return { ...event, reason: labelOf(event.reason) };
    case 'compaction-end':
      return {
        ...event,
        attempts: event.attempts.map((attempt) => ({
          ...attempt,
          reason: attempt.kind ?? labelOf(attempt.reason),
        })),
      };
    default:
      return event;
  }
}

/** `rate_limit: Number of request tokens…` → `rate_limit`; `chunk 2: timeout: …` → `chunk 2`. */
function labelOf(reason: string): string {
  const colon = reason.indexOf(':');
  return (colon === -1 ? reason : reason.slice(0, colon)).slice(0, 80);
}
