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
