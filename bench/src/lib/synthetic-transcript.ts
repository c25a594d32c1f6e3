import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Writes `<sessionsDir>/<sessionId>.jsonl` as the file store writes it: a header, then `turns`
 * answered turns (user message, turn start, reply, turn end: four entries each), and, when
 * `keepLast` is set, a compaction before the last `keepLast` turns (so a model sees the summary
 * and those turns, as in a long conversation that was compacted). Resolves with the entry count.
 */
export async function writeSyntheticTranscript(options: {
  sessionsDir: string;
  sessionId: string;
  turns: number;
  keepLast?: number;
}): Promise<number> {
  const at = new Date().toISOString();
  const lines: string[] = [
    JSON.stringify({ type: 'header', version: 2, sessionId: options.sessionId, createdAt: at }),
  ];
  const compactBefore =
    options.keepLast === undefined ? -1 : Math.max(0, options.turns - options.keepLast);
  for (let index = 0; index < options.turns; index += 1) {
    const turnId = randomUUID();
    const messageId = randomUUID();
    if (index === compactBefore) {
      lines.push(
        JSON.stringify({
          type: 'compaction',
          id: randomUUID(),
          timestamp: at,
          summary: `The user and the assistant exchanged ${index} short messages.`,
          firstKeptEntryId: messageId,
          provenance: {
            producerId: 'builtin:llm',
            attempts: 1,
            tokensBefore: index * 40,
            tokensAfter: 20,
            sourceDigest: `sha256:${'0'.repeat(64)}`,
          },
        }),
      );
    }
    const reply = randomUUID();
    lines.push(
      JSON.stringify({
        type: 'message',
        id: messageId,
        timestamp: at,
        messageId,
        role: 'user',
        content: [{ type: 'text', text: `message ${index}` }],
        turnId,
      }),
      JSON.stringify({
        type: 'turn',
        id: randomUUID(),
        timestamp: at,
        phase: 'start',
        turnId,
        messageId,
      }),
      JSON.stringify({
        type: 'message',
        id: reply,
        timestamp: at,
        messageId: reply,
        role: 'assistant',
        content: [{ type: 'text', text: 'ok' }],
        turnId,
      }),
      JSON.stringify({
        type: 'turn',
        id: randomUUID(),
        timestamp: at,
        phase: 'end',
        turnId,
        messageId,
        outcome: 'reply',
        text: 'ok',
      }),
    );
  }
  await writeFile(join(options.sessionsDir, `${options.sessionId}.jsonl`), `${lines.join('\n')}\n`);
  return lines.length - 1;
}
