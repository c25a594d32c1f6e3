/** The current on-disk format version written in every new transcript header. */
export const TRANSCRIPT_FORMAT_VERSION = 1;

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; toolUseId: string; content: string; isError?: boolean };

/** `tool` messages hold `tool_result` blocks. */
export type Role = 'user' | 'assistant' | 'tool';

export interface TranscriptHeader {
  type: 'header';
  version: number;
  sessionId: string;
  createdAt: string;
}

export interface MessageEntry {
  type: 'message';
  id: string;
  timestamp: string;
  role: Role;
  content: ContentBlock[];
  model?: string;
  usage?: { inputTokens: number; outputTokens: number };
}

export interface CompactionEntry {
  type: 'compaction';
  id: string;
  timestamp: string;
  summary: string;
  firstKeptEntryId: string | null;
  provenance: {
    producerId: string;
    attempts: number;
    tokensBefore: number;
    tokensAfter: number;
    sourceDigest: string;
  };
}

export interface TurnEntry {
  type: 'turn';
  id: string;
  timestamp: string;
  turnId: string;
  phase: 'start' | 'end';
  outcome?: string;
  clientMessageId?: string;
}

export type TranscriptEntry = MessageEntry | CompactionEntry | TurnEntry;

/** A line that could not be used, reported instead of silently dropped. */
export interface TranscriptIssue {
  /** 1-based line number when the whole file was read; absent for tail reads. */
  line?: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  reason: 'invalid-json' | 'invalid-entry' | 'torn-last-line';
  detail: string;
}
