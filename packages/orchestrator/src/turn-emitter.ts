import type { TurnEvent, TurnHooks } from '@keel/spec';

/** Sends events to every observer; a throwing observer is caught, counted, and the turn goes on. */
export interface TurnEmitter {
  emit(event: TurnEvent): void;
  subscribe(listener: (event: TurnEvent) => void): () => void;
  /** Also sends one turn's events to `listener`; returns the function that stops it. */
  watch(turnId: string, listener: (event: TurnEvent) => void): () => void;
  /** Observer calls that threw, since creation. */
  readonly observerErrors: number;
}

export function createTurnEmitter(hooks: readonly TurnHooks[]): TurnEmitter {
  const listeners = new Set<(event: TurnEvent) => void>();
  const watchers = new Map<string, Set<(event: TurnEvent) => void>>();
  let observerErrors = 0;
  const call = (listener: (event: TurnEvent) => void, event: TurnEvent) => {
    try {
      listener(event);
    } catch {
      observerErrors += 1;
    }
  };
  return {
    emit(event) {
      for (const hook of hooks)
        if (hook.onEvent !== undefined) call(hook.onEvent.bind(hook), event);
      for (const listener of listeners) call(listener, event);
      for (const watcher of watchers.get(event.turnId) ?? []) call(watcher, event);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    watch(turnId, listener) {
      let set = watchers.get(turnId);
      if (set === undefined) {
        set = new Set();
        watchers.set(turnId, set);
      }
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && watchers.get(turnId) === set) watchers.delete(turnId);
      };
    },
    get observerErrors() {
      return observerErrors;
    },
  };
}
