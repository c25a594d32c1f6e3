import type { TrailingToolUses } from '@keel/spec';
import { isRecord } from './entry-problem';
import { toNumber } from './postgres-pool';
import { assertValidSessionId } from './postgres-store-error';
import type { StoreContext } from './store-context';

/** Default bound of the look at the end of a transcript: 1 MiB of entry text. */
export const DEFAULT_INSPECT_BYTES = 1024 * 1024;

/**
 * The ids of `tool_use` blocks in the session's last assistant message that no later
 * `tool_result` answers. One statement: the last assistant message's sequence number (a partial
 * index on assistant messages), then the entries from it to the end, within `maxBytes` of entry
 * text. When the last assistant message lies beyond the bound, `complete` is false and no orphan
 * is claimed.
 */
export async function inspectTrailingToolUses(
  context: StoreContext,
  sessionId: string,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<TrailingToolUses> {
  assertValidSessionId(sessionId);
  await context.ready(signal);
  const s = context.schema;
  const { rows } = await context.pool.query(
    `WITH last AS (
        SELECT max(seq) AS seq FROM ${s}.transcript_entries
        WHERE session_id = $1 AND role = 'assistant'
      )
      SELECT last.seq AS last_assistant, e.seq, e.entry
      FROM last
      LEFT JOIN ${s}.transcript_entries e ON e.session_id = $1 AND e.seq >= last.seq
        AND e.byte_offset >= (SELECT total_bytes FROM ${s}.transcripts WHERE session_id = $1) - $2
      ORDER BY e.seq`,
    [sessionId, Math.max(0, Math.floor(maxBytes))],
  );
  signal?.throwIfAborted();
  const lastAssistant = rows[0]?.['last_assistant'];
  if (lastAssistant === null || lastAssistant === undefined) return { orphans: [], complete: true };
  const seen = rows.filter((row) => row['seq'] !== null);
  if (seen.length === 0 || toNumber(seen[0]?.['seq']) !== toNumber(lastAssistant)) {
    return { orphans: [], complete: false };
  }
  return {
    orphans: trailingOrphans(seen.map((row) => parse(String(row['entry'])))),
    complete: true,
  };
}

/** Calls of the first message (the last assistant message) that nothing after them answers. */
function trailingOrphans(messages: unknown[]): string[] {
  const open: string[] = [];
  messages.forEach((message, index) => {
    for (const block of blocksOf(message)) {
      if (index === 0 && block['type'] === 'tool_use' && typeof block['id'] === 'string') {
        if (!open.includes(block['id'])) open.push(block['id']);
      } else if (block['type'] === 'tool_result') {
        const id = block['toolUseId'] ?? block['tool_use_id'];
        const at = typeof id === 'string' ? open.indexOf(id) : -1;
        if (at !== -1) open.splice(at, 1);
      }
    }
  });
  return open;
}

function blocksOf(message: unknown): Array<Record<string, unknown>> {
  if (!isRecord(message) || message['type'] !== 'message' || !Array.isArray(message['content'])) {
    return [];
  }
  return message['content'].filter(isRecord);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
