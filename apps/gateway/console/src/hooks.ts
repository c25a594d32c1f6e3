import type { TurnEvent } from '@keel/spec';
import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { ConsoleApiError } from './console-api-error';
import type { ApiClient } from './create-api-client';
import type { EventHub } from './event-hub';

export interface ConsoleContext {
  client: ApiClient;
  hub: EventHub;
}

export const Console = createContext<ConsoleContext | undefined>(undefined);

export function useConsole(): ConsoleContext {
  const context = useContext(Console);
  if (context === undefined) throw new Error('useConsole outside <Console.Provider>');
  return context;
}

/**
 * A counter that `poke()` bumps at most once per `intervalMs` (pokes in between coalesce into
 * one): a busy gateway's events refresh a view a few times a second, not hundreds.
 */
export function useRefresh(intervalMs: number): [number, () => void] {
  const [tick, setTick] = useState(0);
  const state = useRef({ timer: undefined as ReturnType<typeof setTimeout> | undefined, last: 0 });
  useEffect(() => () => clearTimeout(state.current.timer), []);
  const poke = useRef(() => {
    const current = state.current;
    if (current.timer !== undefined) return;
    const wait = Math.max(0, current.last + intervalMs - Date.now());
    current.timer = setTimeout(() => {
      current.timer = undefined;
      current.last = Date.now();
      setTick((value) => value + 1);
    }, wait);
  });
  return [tick, poke.current];
}

/** Re-renders every `intervalMs` while `active`. Returns the current time. */
export function useNow(intervalMs: number, active = true): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, active]);
  return active ? now : Date.now();
}

export interface Loaded<T> {
  data: T | undefined;
  /** The last load failed (the previous data, if any, is kept). */
  error: ConsoleApiError | Error | undefined;
  loading: boolean;
}

/** GETs `path` when it or `tick` changes; keeps the previous data while reloading the same path. */
export function useJson<T>(path: string | undefined, tick: number): Loaded<T> {
  const { client } = useConsole();
  const [state, setState] = useState<Loaded<T> & { path: string | undefined }>({
    data: undefined,
    error: undefined,
    loading: true,
    path,
  });
  useEffect(() => {
    if (path === undefined) return;
    const controller = new AbortController();
    setState((previous) =>
      previous.path === path
        ? { ...previous, loading: true }
        : { data: undefined, error: undefined, loading: true, path },
    );
    client.get<T>(path, { signal: controller.signal }).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: undefined, loading: false, path });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState((previous) => ({
          data: previous.path === path ? previous.data : undefined,
          error: error instanceof Error ? error : new Error(String(error)),
          loading: false,
          path,
        }));
      },
    );
    return () => controller.abort();
  }, [client, path, tick]);
  return state.path === path ? state : { data: undefined, error: undefined, loading: true };
}

/** Listens to the gateway-wide event stream while the component is mounted. */
export function useHubEvents(listener: (event: TurnEvent) => void): void {
  const { hub } = useConsole();
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => hub.subscribe((event) => latest.current(event)), [hub]);
}
