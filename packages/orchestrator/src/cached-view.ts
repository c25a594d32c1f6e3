import type { TranscriptView } from './transcript-cache';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

/**
 * The session's transcript from the cache: as this orchestrator left it, or brought up to date
 * with what others appended since (`readSince`: those entries only). `undefined` when it is not
 * cached, or changed some other way (then read whole).
 */
export async function cachedView(
  runtime: TurnRuntime,
  turn: LiveTurn,
  signal: AbortSignal,
): Promise<TranscriptView | undefined> {
  const taken = runtime.transcripts.takeFrom(turn.sessionId, turn.fence.state);
  if (taken === undefined || taken.since === undefined) return taken?.view;
  if (runtime.storage.readSince === undefined) return undefined;
  const read = await runtime.storage.readSince(turn.sessionId, taken.since, { signal });
  // A line that did not read back is reported by a whole read (as the store's `issues`).
  if (read === undefined || read.issues.length > 0) return undefined;
  taken.view.entries.push(...read.entries);
  return taken.view;
}
