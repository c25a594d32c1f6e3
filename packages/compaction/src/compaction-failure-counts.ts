/**
 * Where a compactor counts each session's consecutive failed automatic compactions; the session is
 * paused while its count is at least `maxConsecutiveFailures`. A `Map<string, number>` fits, and
 * is the default (one per compactor, in memory). Pass a `Map` shared by several compactors, or a
 * write-through cache of durable storage, for the pause to outlive a compactor or a process.
 * Calls are synchronous and must not throw.
 */
export interface CompactionFailureCounts {
  get(sessionId: string): number | undefined;
  set(sessionId: string, count: number): unknown;
  delete(sessionId: string): unknown;
}
