import type {
  CompactionEntry,
  ContentBlock,
  MessageEntry,
  Role,
  TranscriptEntry,
  TurnEntry,
} from '@keel/spec';

/** Builds transcripts for tests with readable ids (`m1`, `t1`, …). */
export interface TranscriptBuilder {
  entries: TranscriptEntry[];
  message(role: Role, content: string | ContentBlock[], id?: string): TranscriptBuilder;
  user(text: string, id?: string): TranscriptBuilder;
  assistant(text: string): TranscriptBuilder;
  toolUse(id: string, name?: string): TranscriptBuilder;
  toolResult(id: string, content?: string): TranscriptBuilder;
  start(turnId: string, messageId: string): TranscriptBuilder;
  end(turnId: string, messageId: string, extra?: Partial<TurnEntry>): TranscriptBuilder;
  compaction(summary: string, firstKeptEntryId: string | null): TranscriptBuilder;
}

export function transcript(): TranscriptBuilder {
  const entries: TranscriptEntry[] = [];
  let next = 0;
  const nextId = (prefix: string) => {
    next += 1;
    return `${prefix}${next}`;
  };
  const stamp = () => ({ timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, next)).toISOString() });
  const builder: TranscriptBuilder = {
    entries,
    message(role, content, id = nextId('e')) {
      const blocks: ContentBlock[] =
        typeof content === 'string' ? [{ type: 'text', text: content }] : content;
      const entry: MessageEntry = {
        type: 'message',
        id,
        messageId: id,
        role,
        content: blocks,
        ...stamp(),
      };
      entries.push(entry);
      return builder;
    },
    user(text, id) {
      return builder.message('user', text, id);
    },
    assistant(text) {
      return builder.message('assistant', text);
    },
    toolUse(id, name = 'lookup') {
      return builder.message('assistant', [{ type: 'tool_use', id, name, input: {} }]);
    },
    toolResult(id, content = 'ok') {
      return builder.message('tool', [{ type: 'tool_result', toolUseId: id, content }]);
    },
    start(turnId, messageId) {
      const entry: TurnEntry = {
        type: 'turn',
        id: `s-${turnId}`,
        turnId,
        phase: 'start',
        messageId,
        ...stamp(),
      };
      entries.push(entry);
      return builder;
    },
    end(turnId, messageId, extra = {}) {
      const entry: TurnEntry = {
        type: 'turn',
        id: `x-${turnId}`,
        turnId,
        phase: 'end',
        messageId,
        outcome: 'reply',
        text: 'done',
        ...extra,
        ...stamp(),
      };
      entries.push(entry);
      return builder;
    },
    compaction(summary, firstKeptEntryId) {
      const entry: CompactionEntry = {
        type: 'compaction',
        id: nextId('c'),
        summary,
        firstKeptEntryId,
        provenance: {
          producerId: 'test',
          attempts: 1,
          tokensBefore: 10,
          tokensAfter: 2,
          sourceDigest: 'sha256:0',
        },
        ...stamp(),
      };
      entries.push(entry);
      return builder;
    },
  };
  return builder;
}

/** A message list as `role: text` lines, for readable expectations. */
export function lines(
  messages: ReadonlyArray<{ role: string; content: string | ContentBlock[] }>,
): string[] {
  return messages.map((message) => {
    const blocks: ContentBlock[] =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : message.content;
    const text = blocks
      .map((block) =>
        block.type === 'text'
          ? block.text
          : block.type === 'tool_use'
            ? `use:${block.id}`
            : `result:${block.toolUseId}${block.isError ? '!' : ''}`,
      )
      .join(' ');
    return `${message.role}: ${text}`;
  });
}
