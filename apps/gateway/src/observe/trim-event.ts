import type { TurnEvent } from '@keel/spec';

/** A kept event whose long text was cut to fit the event log: `truncated` says so. */
export type TrimmedEvent = TurnEvent & { truncated?: true };

/**
 * Why it exists: one event can carry a whole reply (`turn-end`'s outcome text) or a tool's whole
 * input or output, and the event log keeps what it hands out to every `/events` reader. An event
 * whose JSON is over `maxBytes` is kept with its long strings cut (a reply keeps its beginning
 * as a preview) and `truncated: true`; the whole text stays in the transcript.
 */
export function trimEvent(event: TurnEvent, size: number, maxBytes: number): TrimmedEvent {
  if (size <= maxBytes) return event;
  // Strings are cut to a share of the bound; the rest of an event is small (ids, labels, usage).
  const keep = Math.max(64, Math.floor(maxBytes / 4));
  if (event.type === 'turn-end') {
    const { outcome } = event;
    const staleReply =
      outcome.staleReply === undefined ? {} : { staleReply: cut(outcome.staleReply, keep) };
    return {
      ...event,
      outcome: { ...outcome, text: cut(outcome.text, keep), ...staleReply },
      truncated: true,
    };
  }
  if (event.type === 'tool-run' && event.content !== undefined) {
    return { ...event, content: cut(event.content, keep), truncated: true };
  }
  if (event.type === 'model-event') {
    const inner = event.event;
    switch (inner.type) {
      case 'refusal':
      case 'text-delta':
        return { ...event, event: { ...inner, text: cut(inner.text, keep) }, truncated: true };
      case 'tool-result':
        return {
          ...event,
          event: { ...inner, content: cut(inner.content, keep) },
          truncated: true,
        };
      case 'tool-call':
        return { ...event, event: { ...inner, input: {} }, truncated: true };
      default:
        break;
    }
  }
  return { ...event, truncated: true } as TrimmedEvent;
}

function cut(text: string, keep: number): string {
  return text.length <= keep ? text : `${text.slice(0, keep)}…`;
}
