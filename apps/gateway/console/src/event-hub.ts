import type { TurnEvent } from '@keel/spec';

/** Spreads the events of the one gateway-wide stream to the views that are open. */
export interface EventHub {
  publish(event: TurnEvent): void;
  /** Returns the function that stops listening. */
  subscribe(listener: (event: TurnEvent) => void): () => void;
}

export function createEventHub(): EventHub {
  const listeners = new Set<(event: TurnEvent) => void>();
  return {
    publish(event) {
      for (const listener of listeners) listener(event);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
