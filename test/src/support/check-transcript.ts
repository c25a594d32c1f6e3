import type { MessageEntry, TranscriptEntry, TurnEntry } from '@keel/spec';
import { expect } from 'vitest';

/** What the client was answered for one message. */
export interface ClientAnswer {
  outcome: string;
  text: string;
  turnId: string;
  errorKind?: string;
}

/**
 * One session's transcript against what its client was answered: each client message stored
 * once; no message answered by two turn ends; a `reply` (and an `error`) answered by exactly one,
 * the turn the client heard from; a `resend` (a takeover writes no end) by at most one; and no
 * trailing orphaned `tool_use`. Returns the client message ids the transcript holds.
 */
export function checkTranscript(
  sessionId: string,
  entries: readonly TranscriptEntry[],
  answers: ReadonlyMap<string, ClientAnswer>,
): Set<string> {
  const users = entries.filter(
    (entry): entry is MessageEntry => entry.type === 'message' && entry.role === 'user',
  );
  const byClient = new Map<string, MessageEntry[]>();
  for (const entry of users) {
    if (entry.clientMessageId === undefined) continue;
    byClient.set(entry.clientMessageId, [...(byClient.get(entry.clientMessageId) ?? []), entry]);
  }
  const ends = turnEndsByMessage(entries);
  for (const [messageId, answeredBy] of ends) {
    expect(answeredBy.length, `${sessionId}: message ${messageId} answered once`).toBe(1);
  }
  for (const [clientMessageId, stored] of byClient) {
    expect(
      stored.length,
      `${clientMessageId} stored once\n${describeAround(entries, stored)}`,
    ).toBe(1);
    const answer = answers.get(clientMessageId);
    expect(answer, `${clientMessageId} answered`).toBeDefined();
    const answeredBy = ends.get(stored[0]!.messageId) ?? [];
    if (answer!.outcome === 'resend') {
      // A takeover ends the turn without writing its end: the message stays for the user to resend.
      expect(answeredBy.length, `${clientMessageId} resend`).toBeLessThanOrEqual(1);
    } else {
      expect(answeredBy, `${clientMessageId} answered once (${sessionId})`).toHaveLength(1);
      expect(answeredBy[0]).toMatchObject({ turnId: answer!.turnId });
    }
  }
  const last = [...entries].reverse().find((entry) => entry.type === 'message');
  const orphan =
    last?.type === 'message' &&
    last.role === 'assistant' &&
    last.content.some((block) => block.type === 'tool_use');
  expect(orphan, `${sessionId} ends with an orphaned tool_use`).toBe(false);
  return new Set(byClient.keys());
}

/** Every turn end, by the message it answers (directly, or folded in by `steer`). */
export function turnEndsByMessage(entries: readonly TranscriptEntry[]): Map<string, TurnEntry[]> {
  const ends = new Map<string, TurnEntry[]>();
  for (const entry of entries) {
    if (entry.type !== 'turn' || entry.phase !== 'end') continue;
    const answered = [
      ...(entry.messageId === undefined ? [] : [entry.messageId]),
      ...(entry.steeredMessageIds ?? []),
    ];
    for (const messageId of answered) ends.set(messageId, [...(ends.get(messageId) ?? []), entry]);
  }
  return ends;
}

/** The entries around each of `stored` (a failure's evidence: who wrote the copy, and when). */
function describeAround(
  entries: readonly TranscriptEntry[],
  stored: readonly MessageEntry[],
): string {
  if (stored.length <= 1) return '';
  const lines: string[] = [];
  for (const copy of stored) {
    const at = entries.indexOf(copy);
    for (let index = Math.max(0, at - 3); index <= Math.min(entries.length - 1, at + 3); index++) {
      lines.push(`${index === at ? '>' : ' '} ${index} ${describeEntry(entries[index]!)}`);
    }
    lines.push('  ...');
  }
  return lines.join('\n');
}

function describeEntry(entry: TranscriptEntry): string {
  const fields = entry as unknown as Record<string, unknown>;
  const pick = [
    'timestamp',
    'type',
    'role',
    'phase',
    'outcome',
    'id',
    'messageId',
    'clientMessageId',
    'turnId',
  ]
    .filter((key) => fields[key] !== undefined)
    .map((key) => `${key}=${String(fields[key])}`);
  return pick.join(' ');
}
