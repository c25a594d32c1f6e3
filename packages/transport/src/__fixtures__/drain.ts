import type { TransportEvent } from '../types';

export interface Drained {
  events: TransportEvent[];
  error: unknown;
}

/** Reads a stream to its end; a thrown error is returned, not rethrown. */
export async function drain(
  stream: AsyncIterable<TransportEvent>,
  onEvent?: (event: TransportEvent) => void,
): Promise<Drained> {
  const events: TransportEvent[] = [];
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

export function textOf(events: TransportEvent[]): string {
  return events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');
}
