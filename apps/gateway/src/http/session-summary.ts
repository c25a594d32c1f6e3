import { UnsafeTranscriptPathError } from '@keel/session-fence';
import type { SessionStorage, TranscriptEntry } from '@keel/spec';

/** What `GET /v1/sessions/:sessionId` (and the sessions list) says about a session. */
export interface SessionSummary {
  sessionId: string;
  /** The session's chosen model, or the configured primary when none was chosen. */
  selectedModel: string;
  entryCount: number;
  lastActivity: string | null;
  lastCompaction: {
    id: string;
    timestamp: string;
    producerId: string;
    tokensBefore: number;
    tokensAfter: number;
  } | null;
  lastOutcome: { turnId: string; outcome: string; timestamp: string; model?: string } | null;
  running: boolean;
}

export function summarize(
  sessionId: string,
  entries: readonly TranscriptEntry[],
  primary: string,
  running: boolean,
): SessionSummary {
  let selectedModel = primary;
  let lastCompaction: SessionSummary['lastCompaction'] = null;
  let lastOutcome: SessionSummary['lastOutcome'] = null;
  for (const entry of entries) {
    if (entry.type === 'model-selection') selectedModel = entry.model;
    else if (entry.type === 'compaction') {
      lastCompaction = {
        id: entry.id,
        timestamp: entry.timestamp,
        producerId: entry.provenance.producerId,
        tokensBefore: entry.provenance.tokensBefore,
        tokensAfter: entry.provenance.tokensAfter,
      };
    } else if (entry.type === 'turn' && entry.phase === 'end' && entry.outcome !== undefined) {
      lastOutcome = {
        turnId: entry.turnId,
        outcome: entry.outcome,
        timestamp: entry.timestamp,
        ...(entry.model === undefined ? {} : { model: entry.model }),
      };
    }
  }
  return {
    sessionId,
    selectedModel,
    entryCount: entries.length,
    lastActivity: entries.at(-1)?.timestamp ?? null,
    lastCompaction,
    lastOutcome,
    running,
  };
}

/** Reads and summarizes a session; `undefined` when it has no transcript. */
export async function readSummary(
  storage: SessionStorage,
  sessionId: string,
  primary: string,
  running: boolean,
): Promise<SessionSummary | undefined> {
  const read = await storage.read(sessionId);
  if (!read.exists) return undefined;
  return summarize(sessionId, read.entries, primary, running);
}

/**
 * How much of each transcript the sessions list reads: the end only, so listing costs the same
 * whatever the length of a transcript (the session's own route reads it whole).
 */
export const LIST_TAIL_BYTES = 262_144;

/**
 * A summary for the sessions list, from the transcript's last `maxBytes` only: `entryCount` then
 * counts the entries in that tail, and a model selection or compaction older than it is not
 * seen. `undefined` when the session has no transcript, or its path is not a regular file (a
 * FIFO, a directory, a symlink: never opened, so never waited on), which `onSkipped` is told.
 */
export async function readListSummary(
  storage: SessionStorage,
  sessionId: string,
  options: {
    primary: string;
    running: boolean;
    maxBytes?: number;
    onSkipped?: (sessionId: string, error: Error) => void;
  },
): Promise<SessionSummary | undefined> {
  let read: Awaited<ReturnType<SessionStorage['readTail']>>;
  try {
    read = await storage.readTail(sessionId, { maxBytes: options.maxBytes ?? LIST_TAIL_BYTES });
  } catch (error) {
    if (!UnsafeTranscriptPathError.isInstance(error)) throw error;
    options.onSkipped?.(sessionId, error);
    return undefined;
  }
  if (!read.exists) return undefined;
  return summarize(sessionId, read.entries, options.primary, options.running);
}
