/**
 * The transcript shapes compaction reads and writes, declared structurally (see CONTRIBUTING.md
 * "Shared shapes"). `@keel/session-fence` stores the same shapes; nothing here imports it.
 */

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; toolUseId: string; content: string; isError?: boolean };

/** `tool` messages hold `tool_result` blocks; `user` messages may hold them too. */
export type MessageRole = 'user' | 'assistant' | 'tool';

export interface MessageEntry {
  type: 'message';
  id: string;
  timestamp: string;
  role: MessageRole;
  /** A bare string is read as one text block. */
  content: string | ContentBlock[];
  model?: string;
  /** Provider-reported usage of the model call that produced this (assistant) message. */
  usage?: { inputTokens: number; outputTokens: number };
}

export interface CompactionProvenance {
  /** `builtin:llm`, a registered provider id, or `hook:beforeCompact`. */
  producerId: string;
  /** Producer calls made for the summary that was kept (retries and the corrective retry included). */
  attempts: number;
  tokensBefore: number;
  tokensAfter: number;
  /** `sha256:<hex>` over the compacted entries, one JSON line each. */
  sourceDigest: string;
}

export interface CompactionEntry {
  type: 'compaction';
  id: string;
  timestamp: string;
  summary: string;
  /** First entry still in context after this compaction; `null` when none is kept. */
  firstKeptEntryId: string | null;
  provenance: CompactionProvenance;
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
