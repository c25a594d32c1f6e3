import { randomUUID } from 'node:crypto';
import type { MessageEntry, SessionStorage } from '@keel/spec';
import type { SessionFence } from './session-fence';

export interface RepairOrphanedToolUsesOptions {
  storage: SessionStorage;
  sessionId: string;
  /** Write through this fence (so the turn's expected state advances); else straight to storage. */
  fence?: SessionFence;
  /** Text of each error tool_result. */
  content?: string;
  /**
   * Bytes of the tail to inspect first; default 1 MiB. When they do not hold the whole last
   * exchange, the inspection runs again over the whole transcript (still backwards, stopping at
   * the previous assistant message), so a last exchange longer than this is still repaired.
   */
  tailBytes?: number;
  signal?: AbortSignal;
}

export const INTERRUPTED_TOOL_RESULT =
  'The tool run was interrupted before it returned a result (the process stopped). Its outcome is unknown.';

/**
 * For a keel transcript: durably appends one `tool` message holding an error `tool_result` for
 * each trailing orphaned tool_use, so the history is valid to send again. Returns the repaired
 * ids (`[]` when nothing was orphaned and nothing was written). Uses only the storage port.
 */
export async function repairOrphanedToolUses(
  options: RepairOrphanedToolUsesOptions,
): Promise<string[]> {
  const { storage, sessionId, signal } = options;
  let inspected = await storage.inspectTrailingToolUses(sessionId, {
    ...(options.tailBytes === undefined ? {} : { maxBytes: options.tailBytes }),
    ...(signal === undefined ? {} : { signal }),
  });
  // The last exchange is longer than the window (a huge tool result). Repair is rare and must
  // not miss an orphan: look again without a bound. The scan holds one line at a time and the
  // tool ids it found, never the transcript's entries.
  if (!inspected.complete) {
    inspected = await storage.inspectTrailingToolUses(sessionId, {
      maxBytes: Number.MAX_SAFE_INTEGER,
      ...(signal === undefined ? {} : { signal }),
    });
  }
  const orphans = inspected.orphans;
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
  else await storage.append(sessionId, [entry], { ...(signal === undefined ? {} : { signal }) });
  return orphans;
}
