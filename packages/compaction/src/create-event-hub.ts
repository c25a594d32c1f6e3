import type { CompactionEvent } from '@keel/spec';

/** Internal: where a compactor's events go. */
export interface EventHub {
  /** Delivers to every listener; a throwing listener is ignored. */
  emit(event: CompactionEvent): void;
  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: (event: CompactionEvent) => void): () => void;
}

/** Internal: the listeners of one compactor, `onEvent` first. */
export function createEventHub(onEvent?: (event: CompactionEvent) => void): EventHub {
  const listeners = new Set<(event: CompactionEvent) => void>();
  if (onEvent !== undefined) listeners.add(onEvent);
  return {
    emit(event) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // observers never break a compaction
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
