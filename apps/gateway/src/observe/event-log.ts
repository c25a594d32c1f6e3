import type { TurnEvent } from '@keel/spec';
import { publicEvent } from './public-event';

export interface EventLogOptions {
  /** Events kept per session; default 1000. */
  perSession?: number;
  /** Sessions kept (the least recently active are dropped first); default 10 000. */
  sessions?: number;
}

/**
 * Recent turn events per session, and live followers. Text deltas are not kept, only followed.
 * What it keeps and hands out is the public form of each event (`publicEvent`): no provider text.
 */
export interface EventLog {
  record(event: TurnEvent): void;
  recent(sessionId: string, limit?: number): TurnEvent[];
  /** Every event of the session from now on; returns the function that stops following. */
  follow(sessionId: string | undefined, listener: (event: TurnEvent) => void): () => void;
}

export function createEventLog(options: EventLogOptions = {}): EventLog {
  const perSession = options.perSession ?? 1000;
  const maxSessions = options.sessions ?? 10_000;
  const bySession = new Map<string, TurnEvent[]>();
  const followers = new Map<string, Set<(event: TurnEvent) => void>>();
  const everyone = new Set<(event: TurnEvent) => void>();

  const notify = (listener: (event: TurnEvent) => void, event: TurnEvent) => {
    try {
      listener(event);
    } catch {
      // A broken follower (a closed stream) never stops the others.
    }
  };

  return {
    record(raw) {
      const event = publicEvent(raw);
      if (!isTextDelta(event)) {
        let list = bySession.get(event.sessionId);
        if (list === undefined) {
          list = [];
        } else {
          bySession.delete(event.sessionId); // re-inserted below: most recent last
        }
        list.push(event);
        if (list.length > perSession) list.splice(0, list.length - perSession);
        bySession.set(event.sessionId, list);
        if (bySession.size > maxSessions) {
          const oldest = bySession.keys().next().value;
          if (oldest !== undefined) bySession.delete(oldest);
        }
      }
      for (const listener of followers.get(event.sessionId) ?? []) notify(listener, event);
      for (const listener of everyone) notify(listener, event);
    },
    recent(sessionId, limit = perSession) {
      return (bySession.get(sessionId) ?? []).slice(-limit);
    },
    follow(sessionId, listener) {
      if (sessionId === undefined) {
        everyone.add(listener);
        return () => {
          everyone.delete(listener);
        };
      }
      let set = followers.get(sessionId);
      if (set === undefined) {
        set = new Set();
        followers.set(sessionId, set);
      }
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) followers.delete(sessionId);
      };
    },
  };
}

function isTextDelta(event: TurnEvent): boolean {
  return (
    event.type === 'model-event' &&
    (event.event.type === 'text-delta' || event.event.type === 'usage')
  );
}
