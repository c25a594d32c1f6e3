import type { TurnEvent } from '@keel/spec';
import { publicEvent } from './public-event';

export interface EventLogOptions {
  /** Events kept per session (and per compatible call); default 1000. */
  perSession?: number;
  /** Sessions kept (the least recently active are dropped first); default 10 000. */
  sessions?: number;
  /** Compatible calls kept (the oldest are dropped first); default 1000. */
  calls?: number;
  /**
   * Whether an event's `sessionId` is a running compatible call (`CallRegistry.get`): its
   * events are kept apart, so a busy stateless API never pushes the sessions' stories out.
   */
  isCall?: (sessionId: string) => boolean;
}

/** One kind of recent history: events by id, bounded by ids and by events per id. */
export interface EventHistory {
  recent(id: string, limit?: number): TurnEvent[];
  /** Every new event of that id from now on; returns the function that stops following. */
  follow(id: string, listener: (event: TurnEvent) => void): () => void;
}

/**
 * Recent turn events per session, and live followers. Text deltas are not kept, only followed.
 * What it keeps and hands out is the public form of each event (`publicEvent`): no provider text.
 * The compatible endpoints' calls are turns too: their events are kept in `calls`, by call id.
 */
export interface EventLog {
  record(event: TurnEvent): void;
  recent(sessionId: string, limit?: number): TurnEvent[];
  /** Every event of the session from now on (of every session and call: `undefined`). */
  follow(sessionId: string | undefined, listener: (event: TurnEvent) => void): () => void;
  /** The compatible calls' events, by call id. */
  readonly calls: EventHistory;
}

export function createEventLog(options: EventLogOptions = {}): EventLog {
  const perSession = options.perSession ?? 1000;
  const sessions = createHistory(perSession, options.sessions ?? 10_000);
  const calls = createHistory(perSession, options.calls ?? 1000);
  const everyone = new Set<(event: TurnEvent) => void>();
  const isCall = options.isCall ?? (() => false);

  return {
    record(raw) {
      const event = publicEvent(raw);
      (isCall(event.sessionId) ? calls : sessions).add(event);
      for (const listener of everyone) notify(listener, event);
    },
    recent: sessions.recent,
    follow(sessionId, listener) {
      if (sessionId !== undefined) return sessions.follow(sessionId, listener);
      everyone.add(listener);
      return () => {
        everyone.delete(listener);
      };
    },
    calls: { recent: calls.recent, follow: calls.follow },
  };
}

function createHistory(
  perId: number,
  maxIds: number,
): EventHistory & { add(event: TurnEvent): void } {
  const byId = new Map<string, TurnEvent[]>();
  const followers = new Map<string, Set<(event: TurnEvent) => void>>();
  return {
    add(event) {
      if (!isTextDelta(event)) {
        let list = byId.get(event.sessionId);
        if (list === undefined) {
          list = [];
        } else {
          byId.delete(event.sessionId); // re-inserted below: most recent last
        }
        list.push(event);
        if (list.length > perId) list.splice(0, list.length - perId);
        byId.set(event.sessionId, list);
        if (byId.size > maxIds) {
          const oldest = byId.keys().next().value;
          if (oldest !== undefined) byId.delete(oldest);
        }
      }
      for (const listener of followers.get(event.sessionId) ?? []) notify(listener, event);
    },
    recent(id, limit = perId) {
      return (byId.get(id) ?? []).slice(-limit);
    },
    follow(id, listener) {
      let set = followers.get(id);
      if (set === undefined) {
        set = new Set();
        followers.set(id, set);
      }
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) followers.delete(id);
      };
    },
  };
}

function notify(listener: (event: TurnEvent) => void, event: TurnEvent): void {
  try {
    listener(event);
  } catch {
    // A broken follower (a closed stream) never stops the others.
  }
}

function isTextDelta(event: TurnEvent): boolean {
  return (
    event.type === 'model-event' &&
    (event.event.type === 'text-delta' || event.event.type === 'usage')
  );
}
