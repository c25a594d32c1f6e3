import type { TransportEvent } from '../types';

export async function* fromArray<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

export async function collect(events: AsyncIterable<TransportEvent>): Promise<TransportEvent[]> {
  const out: TransportEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}
