import type {
  CompactionEntry,
  MessageEntry,
  ModelSelectionEntry,
  SessionStorage,
  TranscriptEntry,
  TurnEntry,
} from '@keel/spec';

/** What the storage conformance kit runs against: a fresh, empty storage, and how to dispose of it. */
export interface SessionStorageUnderTest {
  storage: SessionStorage;
  cleanup(): Promise<void>;
}

export interface SessionStorageConformanceOptions {
  /** Per-test timeout in ms; default vitest's. */
  timeoutMs?: number;
  /**
   * The `timeoutMs` the kit gives a lease that must give up because another lease holds the
   * session (it expects a `coordination` error); default 200.
   */
  contendedLeaseTimeoutMs?: number;
  /** Also check the storage's turn claims (`turnClaims`, an optional capability); default false. */
  turnClaims?: boolean;
}

const timestamp = '2026-01-01T00:00:00.000Z';

/** A user message with one text block. */
export function storageUserMessage(id: string, text = `message ${id}`): MessageEntry {
  return {
    type: 'message',
    id,
    messageId: id,
    timestamp,
    role: 'user',
    content: [{ type: 'text', text }],
  };
}

/**
 * One entry of every type of transcript format 2, each with every optional field set, for a
 * round trip: what is appended must read back equal.
 */
export function storageConformanceEntries(): TranscriptEntry[] {
  const question: MessageEntry = {
    type: 'message',
    id: 'e1',
    messageId: 'msg-public-1',
    clientMessageId: 'client-1',
    turnId: 'turn-1',
    timestamp,
    role: 'user',
    content: [{ type: 'text', text: 'list the files, then summarise them — ünïcödé ✓' }],
  };
  const call: MessageEntry = {
    type: 'message',
    id: 'e2',
    messageId: 'e2',
    turnId: 'turn-1',
    timestamp,
    role: 'assistant',
    model: 'anthropic/claude-sonnet-5',
    provider: 'anthropic',
    usage: { inputTokens: 120, outputTokens: 30 },
    content: [
      { type: 'text', text: 'Running ls.' },
      { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls', flags: ['-l'] } },
    ],
  };
  const result: MessageEntry = {
    type: 'message',
    id: 'e3',
    messageId: 'e3',
    timestamp,
    role: 'tool',
    content: [
      { type: 'tool_result', toolUseId: 'toolu_1', content: 'a.txt\nb.txt', isError: false },
    ],
  };
  const start: TurnEntry = {
    type: 'turn',
    id: 'e4',
    timestamp,
    turnId: 'turn-1',
    phase: 'start',
    messageId: 'msg-public-1',
    clientMessageId: 'client-1',
  };
  const end: TurnEntry = {
    type: 'turn',
    id: 'e5',
    timestamp,
    turnId: 'turn-1',
    phase: 'end',
    messageId: 'msg-public-1',
    clientMessageId: 'client-1',
    steeredMessageIds: ['msg-public-2'],
    outcome: 'error',
    text: 'The model is rate limited; try again in 2 seconds.',
    model: 'anthropic/claude-sonnet-5',
    provider: 'anthropic',
    errorKind: 'rate_limit',
    retryAfterMs: 2000,
  };
  const compaction: CompactionEntry = {
    type: 'compaction',
    id: 'e6',
    timestamp,
    summary: '## Goal\nList the files.',
    firstKeptEntryId: 'e3',
    provenance: {
      producerId: 'builtin:llm',
      attempts: 1,
      tokensBefore: 1200,
      tokensAfter: 80,
      sourceDigest: `sha256:${'0'.repeat(64)}`,
    },
  };
  const selection: ModelSelectionEntry = {
    type: 'model-selection',
    id: 'e7',
    timestamp,
    model: 'openai/gpt-5.4',
    source: 'healed',
    turnId: 'turn-1',
  };
  return [question, call, result, start, end, compaction, selection];
}
