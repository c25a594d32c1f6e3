import type { TurnEvent } from '@keel/spec';
import { jsonLength } from './json-length';
import { publicEvent } from './public-event';
import { trimEvent } from './trim-event';

export interface EventLogOptions {
  /** Events kept per session (and per compatible call); default 1000. */
  perSession?: number;
  /** Sessions kept (the least recently active are dropped first); default 10 000. */
  sessions?: number;
  /** Compatible calls kept (the oldest are dropped first); default 1000. */
  calls?: number;
  /**
   * Bytes (of the events' JSON) kept in all, sessions and calls together: past it the least
   * recently active session or call is forgotten first; default 4 MiB.
   */
  maxBytes?: number;
  /** Bytes kept per session (and per call): past it its oldest events go first; default 1 MiB. */
  perSessionBytes?: number;
  /**
   * How long an event is kept: older ones are dropped, and a session idle that long is forgotten;
   * default 1 hour.
   */
  maxAgeMs?: number;
  /**
   * One event's bytes at most: a longer one is kept, and handed to followers, with its long texts
   * cut (`truncated: true`); default 64 KiB.
   */
  maxEventBytes?: number;
  /** Milliseconds now; default `Date.now`. */
  now?: () => number;
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
 * What it keeps is bounded by what it costs: events per id, bytes per id and in all, and age.
 */
export interface EventLog {
  record(event: TurnEvent): void;
  recent(sessionId: string, limit?: number): TurnEvent[];
  /** Every event of the session from now on (of every session and call: `undefined`). */
  follow(sessionId: string | undefined, listener: (event: TurnEvent) => void): () => void;
  /** The compatible calls' events, by call id. */
  readonly calls: EventHistory;
  /** The bytes (of the events' JSON) kept now, sessions and calls together. */
  bytes(): number;
}

interface Kept {
  event: TurnEvent;
  bytes: number;
  keptAt: number;
}

interface Story {
  events: Kept[];
  bytes: number;
  lastAt: number;
  /** Order of last activity across both histories (times can tie). */
  order: number;
}

interface Limits {
  perId: number;
  perIdBytes: number;
  maxEventBytes: number;
  maxAgeMs: number;
  now: () => number;
}

/** What both histories share: the byte budget, spent on whichever was least recently active. */
interface Budget {
  bytes: number;
  order: number;
  readonly maxBytes: number;
  readonly histories: Array<Map<string, Story>>;
}

export function createEventLog(options: EventLogOptions = {}): EventLog {
  const perSessionBytes = options.perSessionBytes ?? 1_048_576;
  const limits: Limits = {
    perId: options.perSession ?? 1000,
    perIdBytes: perSessionBytes,
    maxEventBytes: Math.min(options.maxEventBytes ?? 65_536, perSessionBytes),
    maxAgeMs: options.maxAgeMs ?? 3_600_000,
    now: options.now ?? Date.now,
  };
  const budget: Budget = {
    bytes: 0,
    order: 0,
    maxBytes: options.maxBytes ?? 4_194_304,
    histories: [],
  };
  const sessions = createHistory(limits, options.sessions ?? 10_000, budget);
  const calls = createHistory(limits, options.calls ?? 1000, budget);
  const everyone = new Set<(event: TurnEvent) => void>();
  const isCall = options.isCall ?? (() => false);

  return {
    record(raw) {
      let event = publicEvent(raw);
      let bytes: number | undefined;
      if (!isTextDelta(event)) {
        // Kept and followed alike: a long event is cut once, before anyone sees it.
        bytes = sizeOf(event);
        if (bytes > limits.maxEventBytes) {
          event = trimEvent(event, bytes, limits.maxEventBytes);
          bytes = sizeOf(event);
          if (bytes > limits.maxEventBytes) bytes = undefined; // nothing long left: followed only
        }
      }
      (isCall(event.sessionId) ? calls : sessions).add(event, bytes);
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
    bytes: () => budget.bytes,
  };
}

function createHistory(
  limits: Limits,
  maxIds: number,
  budget: Budget,
): EventHistory & { add(event: TurnEvent, bytes: number | undefined): void } {
  /** Least recently active first (an id is re-inserted on each event). */
  const byId = new Map<string, Story>();
  budget.histories.push(byId);
  const followers = new Map<string, Set<(event: TurnEvent) => void>>();

  const forget = (map: Map<string, Story>, id: string, story: Story) => {
    map.delete(id);
    budget.bytes -= story.bytes;
  };
  const dropOldest = (story: Story) => {
    const dropped = story.events.shift();
    if (dropped === undefined) return;
    story.bytes -= dropped.bytes;
    budget.bytes -= dropped.bytes;
  };
  /** Forgets ids idle past `maxAgeMs`, in every history (the least recently active come first). */
  const sweepIdle = (now: number) => {
    for (const map of budget.histories) {
      for (const [id, story] of map) {
        if (now - story.lastAt <= limits.maxAgeMs) break;
        forget(map, id, story);
      }
    }
  };
  /** Within the byte budget: forgets the least recently active id of either history first. */
  const spend = () => {
    while (budget.bytes > budget.maxBytes) {
      let oldest: { map: Map<string, Story>; id: string; story: Story } | undefined;
      for (const map of budget.histories) {
        const first = map.entries().next().value;
        if (first === undefined) continue;
        if (oldest === undefined || first[1].order < oldest.story.order)
          oldest = { map, id: first[0], story: first[1] };
      }
      if (oldest === undefined) return;
      forget(oldest.map, oldest.id, oldest.story);
    }
  };

  return {
    /** Follows `event`; keeps it too when it has a size (text deltas and oversized events: not). */
    add(event, bytes) {
      if (bytes !== undefined) keep(event, bytes);
      for (const listener of followers.get(event.sessionId) ?? []) notify(listener, event);
    },
    recent(id, limit = limits.perId) {
      const story = byId.get(id);
      if (story === undefined) return [];
      const since = limits.now() - limits.maxAgeMs;
      return story.events
        .filter((kept) => kept.keptAt >= since)
        .slice(-limit)
        .map((kept) => kept.event);
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

  function keep(event: TurnEvent, bytes: number): void {
    const now = limits.now();
    sweepIdle(now);
    let story = byId.get(event.sessionId);
    if (story === undefined) story = { events: [], bytes: 0, lastAt: now, order: 0 };
    else byId.delete(event.sessionId); // re-inserted below: most recent last
    story.events.push({ event, bytes, keptAt: now });
    story.bytes += bytes;
    story.lastAt = now;
    budget.order += 1;
    story.order = budget.order;
    budget.bytes += bytes;
    const since = now - limits.maxAgeMs;
    while (
      story.events.length > limits.perId ||
      story.bytes > limits.perIdBytes ||
      (story.events[0] !== undefined && story.events[0].keptAt < since)
    ) {
      dropOldest(story);
    }
    byId.set(event.sessionId, story);
    if (byId.size > maxIds) {
      const first = byId.entries().next().value;
      if (first !== undefined) forget(byId, first[0], first[1]);
    }
    spend();
  }
}

/**
 * An event's cost: the UTF-16 length of its JSON, close to its bytes on the wire for ASCII
 * (counted, not written: `jsonLength`).
 */
function sizeOf(event: TurnEvent): number {
  return jsonLength(event);
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
