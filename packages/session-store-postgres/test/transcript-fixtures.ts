import { randomUUID } from 'node:crypto';
import type { ContentBlock, MessageEntry, Role, TranscriptEntry } from '@keel/spec';

let counter = 0;

/** A session id no other test uses. */
export function sessionIdFor(label: string): string {
  counter += 1;
  return `${label}-${counter}-${randomUUID().slice(0, 8)}`;
}

export function message(role: Role, content: ContentBlock[], extra: Partial<MessageEntry> = {}) {
  counter += 1;
  const id = `m${counter}`;
  return {
    type: 'message',
    id,
    messageId: id,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, counter % 60)).toISOString(),
    role,
    content,
    ...extra,
  } satisfies MessageEntry;
}

export const userText = (text: string) => message('user', [{ type: 'text', text }]);
export const assistantText = (text: string) => message('assistant', [{ type: 'text', text }]);
export const toolCalls = (...ids: string[]) =>
  message(
    'assistant',
    ids.map((id) => ({ type: 'tool_use', id, name: 'Bash', input: { command: 'ls' } })),
  );
export const toolResults = (...ids: string[]) =>
  message(
    'tool',
    ids.map((id) => ({ type: 'tool_result', toolUseId: id, content: 'a.txt' })),
  );

/** A turn's end, a compaction and a model selection: every entry type of the current format. */
export function otherEntries(): TranscriptEntry[] {
  counter += 1;
  const timestamp = new Date(Date.UTC(2026, 0, 2)).toISOString();
  return [
    {
      type: 'turn',
      id: `t${counter}`,
      timestamp,
      turnId: `turn-${counter}`,
      phase: 'end',
      outcome: 'error',
      errorKind: 'overloaded',
      retryAfterMs: 1500,
      text: 'Try again in a moment.',
    },
    {
      type: 'compaction',
      id: `c${counter}`,
      timestamp,
      summary: '## Goal\nship it',
      firstKeptEntryId: null,
      provenance: {
        producerId: 'builtin:llm',
        attempts: 1,
        tokensBefore: 1000,
        tokensAfter: 100,
        sourceDigest: 'sha256:00',
      },
    },
    { type: 'model-selection', id: `s${counter}`, timestamp, model: 'openai/gpt', source: 'user' },
  ];
}
