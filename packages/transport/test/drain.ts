import type { ModelEvent } from '@keel/spec';

export interface Drained {
  events: ModelEvent[];
  error: unknown;
}

/** Reads a stream to its end; a thrown error is returned, not rethrown. */
export async function drain(
  stream: AsyncIterable<ModelEvent>,
  onEvent?: (event: ModelEvent) => void,
): Promise<Drained> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of stream) {
      events.push(event);
      onEvent?.(event);
    }
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

export function textOf(events: ModelEvent[]): string {
  return events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');
}
