import type { ContentBlock, Role, Usage } from './content';
import type { ErrorKind } from './error-kind';

/**
 * The transcript format written in every new header. Version history (each older line is
 * migrated on read by the store that reads it):
 * - 0: headerless lines, `content` possibly a string, snake_case tool results;
 * - 1: a header line; message, compaction and turn entries;
 * - 2: message entries carry `messageId` (and optionally `clientMessageId`, `turnId`); turn
 *   entries carry a typed outcome with its user-facing text, model and provider; the
 *   `model-selection` entry.
 */
export const TRANSCRIPT_FORMAT_VERSION = 2;

/** The first line of a transcript. */
export interface TranscriptHeader {
  type: 'header';
  version: number;
  sessionId: string;
  createdAt: string;
}

/** What every entry has: a unique id within the session and an ISO-8601 time. */
export interface EntryBase {
  id: string;
  timestamp: string;
}

/** A message: user input, a model reply (text and tool calls), or tool results. */
export interface MessageEntry extends EntryBase {
  type: 'message';
  /** The message's public id (what the gateway answers with); equals `id` unless set otherwise. */
  messageId: string;
  /** The client's idempotency key for a user message, when it sent one. */
  clientMessageId?: string;
  /** The turn that wrote (assistant, tool) or answered (user) this message. */
  turnId?: string;
  role: Role;
  content: ContentBlock[];
  /** `providerId/model` for a model's message. */
  model?: string;
  provider?: string;
  /** Provider-reported usage of the model call that produced this (assistant) message. */
  usage?: Usage;
}

/** Where a compaction summary came from and what it replaced. */
export interface CompactionProvenance {
  /** `builtin:llm`, a registered provider id, or `hook:beforeCompact`. */
  producerId: string;
  /** Producer calls made for the summary that was kept. */
  attempts: number;
  tokensBefore: number;
  tokensAfter: number;
  /** `sha256:<hex>` over the compacted entries, one JSON line each. */
  sourceDigest: string;
}

/** A validated summary that stands in for every entry before `firstKeptEntryId`. */
export interface CompactionEntry extends EntryBase {
  type: 'compaction';
  summary: string;
  /** First entry still in context after this compaction; `null` when none is kept. */
  firstKeptEntryId: string | null;
  provenance: CompactionProvenance;
}

/** How a turn ended. Over HTTP an `aborted` turn (shutdown) answers `error` with the restart notice. */
export type TurnOutcomeKind = 'reply' | 'resend' | 'error' | 'aborted';

/** The start or the end of one turn. The end carries the outcome the user was given. */
export interface TurnEntry extends EntryBase {
  type: 'turn';
  turnId: string;
  phase: 'start' | 'end';
  /** The user message the turn answers. */
  messageId?: string;
  clientMessageId?: string;
  /** Messages that arrived during the turn and were folded into it (`steer`). */
  steeredMessageIds?: string[];
  /** On `end`: how the turn ended. */
  outcome?: TurnOutcomeKind;
  /**
   * On `end`: the user-facing text — safe copy for an outcome other than a reply. A reply is
   * stored once, in the turn's assistant messages (their text blocks joined, the messages joined
   * by a blank line), and is left out here when they give it back exactly; transcripts written
   * before that have it here too.
   */
  text?: string;
  /** On `end`: `providerId/model` that answered (or was last tried). */
  model?: string;
  provider?: string;
  /** On `end` of an `error`: its kind, and how long to wait before trying again, if known. */
  errorKind?: ErrorKind;
  retryAfterMs?: number;
  /** On `end`: the tokens of every attempt of the turn added up, when any were reported. */
  usage?: Usage;
}

/** The session's chosen model (`providerId/model`), as the user selected it or a turn healed it. */
export interface ModelSelectionEntry extends EntryBase {
  type: 'model-selection';
  model: string;
  /** `user`: an explicit selection; `healed`: a turn reset it after too many live switches. */
  source: 'user' | 'healed';
  turnId?: string;
}

/** Any line of a transcript after the header. */
export type TranscriptEntry = MessageEntry | CompactionEntry | TurnEntry | ModelSelectionEntry;

/** A line that could not be used, reported instead of silently dropped. */
export interface TranscriptIssue {
  /** 1-based line number when the whole transcript was read; absent for tail reads. */
  line?: number;
  /** Byte offset of the line's first byte (a file store), or its sequence number (a database). */
  offset: number;
  reason: 'invalid-json' | 'invalid-entry' | 'torn-last-line';
  detail: string;
}
