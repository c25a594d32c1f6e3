/**
 * Which sessions a client follows live (`GET /v1/sessions/:id/events?follow=1`, or every session
 * with `GET /v1/events?follow=1`, the console). A turn answered as JSON in a session nobody follows
 * is seen by nobody before its end, so its message can be made durable with its reply: one fsync a
 * turn instead of two (`RunTurnRequest.messageFlush`).
 */
export interface SessionWatchers {
  /** A client follows `sessionId` (`undefined`: every session) until the returned function runs. */
  watch(sessionId: string | undefined): () => void;
  /** Whether any client follows `sessionId` now. */
  watched(sessionId: string): boolean;
}

export function createSessionWatchers(): SessionWatchers {
  const bySession = new Map<string, number>();
  let everySession = 0;
  return {
    watch(sessionId) {
      if (sessionId === undefined) everySession += 1;
      else bySession.set(sessionId, (bySession.get(sessionId) ?? 0) + 1);
      let stopped = false;
      return () => {
        if (stopped) return;
        stopped = true;
        if (sessionId === undefined) {
          everySession -= 1;
          return;
        }
        const left = (bySession.get(sessionId) ?? 1) - 1;
        if (left === 0) bySession.delete(sessionId);
        else bySession.set(sessionId, left);
      };
    },
    watched: (sessionId) => everySession > 0 || bySession.has(sessionId),
  };
}
