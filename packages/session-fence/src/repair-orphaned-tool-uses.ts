import { randomUUID } from 'node:crypto';
import type { MessageEntry, TranscriptEntry } from '@keel/spec';
import {
  type ConversationLine,
  findTrailingOrphans,
  toConversationLine,
} from './find-trailing-orphans';
import type { SessionFence } from './session-fence';
import type { LockingSessionStorage as SessionStorage } from './session-storage';

export interface RepairOrphanedToolUsesOptions {
  storage: SessionStorage;
  sessionId: string;
  /** Write through this fence (so the turn's expected state advances); else straight to storage. */
  fence?: SessionFence;
  /** Text of each error tool_result. */
  content?: string;
  /**
   * Bytes of the tail to inspect first; default 1 MiB. When they hold no assistant message, the
   * whole transcript is read instead, so a last exchange longer than this is still repaired.
   */
  tailBytes?: number;
  signal?: AbortSignal;
}

export const INTERRUPTED_TOOL_RESULT =
  'The tool run was interrupted before it returned a result (the process stopped). Its outcome is unknown.';

/**
 * For a keel transcript: durably appends one `tool` message holding an error `tool_result` for
 * each trailing orphaned tool_use, so the history is valid to send again. Returns the repaired
 * ids (`[]` when nothing was orphaned and nothing was written).
 */
export async function repairOrphanedToolUses(
  options: RepairOrphanedToolUsesOptions,
): Promise<string[]> {
  const { storage, sessionId, signal } = options;
  const tail = await storage.readTail(sessionId, { maxBytes: options.tailBytes, signal });
  let lines = conversationLines(tail.entries);
  // No assistant message in the tail: the last exchange may be longer than the window (a huge
  // tool result). Repair is rare and must not miss an orphan, so it reads the whole transcript.
  if (!lines.some((line) => line.assistant))
    lines = conversationLines((await storage.read(sessionId, { signal })).entries);
  const orphans = findTrailingOrphans(lines);
  if (orphans.length === 0) return [];
  const id = randomUUID();
  const entry: MessageEntry = {
    type: 'message',
    id,
    messageId: id,
    timestamp: new Date().toISOString(),
    role: 'tool',
    content: orphans.map((toolUseId) => ({
      type: 'tool_result',
      toolUseId,
      content: options.content ?? INTERRUPTED_TOOL_RESULT,
      isError: true,
    })),
  };
  if (options.fence !== undefined) await options.fence.append([entry], { signal });
  else await storage.append(sessionId, [entry], { signal });
  return orphans;
}

function conversationLines(entries: readonly TranscriptEntry[]): ConversationLine[] {
  const lines: ConversationLine[] = [];
  for (const entry of entries) {
    const line = toConversationLine(entry, 'keel');
    if (line !== undefined) lines.push(line);
  }
  return lines;
}
