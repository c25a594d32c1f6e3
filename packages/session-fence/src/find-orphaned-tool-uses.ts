import { constants } from 'node:fs';
import type { TrailingToolUses } from '@keel/spec';
import {
  type ConversationLine,
  findTrailingOrphans,
  type TranscriptFormat,
  toConversationLine,
} from './find-trailing-orphans';
import { readLinesBackward } from './read-lines-backward';
import { lstatIfExists, openRegularFile } from './safe-file';

export interface FindOrphanedToolUsesOptions {
  format: TranscriptFormat;
  /** Bytes read from the end of the file; default 1 MiB. */
  tailBytes?: number;
  signal?: AbortSignal;
}

/** Default bounded tail for transcript inspection: 1 MiB. */
export const DEFAULT_INSPECT_TAIL_BYTES = 1024 * 1024;

/**
 * The ids of `tool_use` blocks (claude-cli also `server_tool_use` / `mcp_tool_use`) in the last
 * assistant message that no later tool result answers. Reads backwards from the end, at most
 * `tailBytes` bytes, and stops once it has passed the start of the last assistant message.
 * Lines that do not parse (a torn last line, a corrupt line) are skipped. A missing, empty,
 * non-regular or symlinked file gives `[]`; use `getTranscriptFileStatus` to tell those apart,
 * and `inspectTrailingToolUses` to learn whether the window held the whole last exchange.
 */
export async function findOrphanedToolUses(
  path: string,
  options: FindOrphanedToolUsesOptions,
): Promise<string[]> {
  return (await inspectTrailingToolUses(path, options)).orphans;
}

/** `findOrphanedToolUses`, plus whether the bounded window held the whole last exchange. */
export async function inspectTrailingToolUses(
  path: string,
  options: FindOrphanedToolUsesOptions,
): Promise<TrailingToolUses> {
  const tail = await readConversationTail(path, options);
  return { orphans: findTrailingOrphans(tail.lines), complete: tail.complete };
}

/**
 * Reads conversation lines backwards from the end of the file, at most `tailBytes`, and stops at
 * the first line of an earlier assistant message, so the work done is proportional to the size
 * of the last exchange, not of the file. No lines (and `complete`) for anything unreadable as a
 * regular file.
 */
async function readConversationTail(
  path: string,
  options: FindOrphanedToolUsesOptions,
): Promise<{ lines: ConversationLine[]; complete: boolean }> {
  options.signal?.throwIfAborted();
  const stats = await lstatIfExists(path);
  if (stats === undefined || !stats.isFile() || stats.size === 0)
    return { lines: [], complete: true };
  let handle: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    handle = await openRegularFile(path, constants.O_RDONLY);
  } catch {
    return { lines: [], complete: true };
  }
  try {
    const size = (await handle.stat()).size;
    const start = Math.max(0, size - (options.tailBytes ?? DEFAULT_INSPECT_TAIL_BYTES));
    const reversed: ConversationLine[] = [];
    let last: ConversationLine | undefined;
    let reachedEarlierMessage = false;
    for await (const line of readLinesBackward(handle, { start, end: size })) {
      let value: unknown;
      try {
        value = JSON.parse(line.text);
      } catch {
        continue;
      }
      const conversation = toConversationLine(value, options.format);
      if (conversation === undefined) continue;
      if (conversation.assistant) {
        // An assistant line of an earlier message: nothing before it can be a trailing orphan.
        if (
          last !== undefined &&
          (last.messageKey === undefined || conversation.messageKey !== last.messageKey)
        ) {
          reachedEarlierMessage = true;
          break;
        }
        last ??= conversation;
      }
      reversed.push(conversation);
    }
    options.signal?.throwIfAborted();
    // A keel message is one line, so seeing it is enough; a claude-cli message may have more
    // lines before the window.
    const complete =
      start === 0 || reachedEarlierMessage || (options.format === 'keel' && last !== undefined);
    return { lines: reversed.reverse(), complete };
  } finally {
    await handle.close();
  }
}
