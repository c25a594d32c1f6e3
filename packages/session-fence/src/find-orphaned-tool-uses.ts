import { constants } from 'node:fs';
import {
  type ConversationLine,
  findTrailingOrphans,
  type TranscriptFormat,
  toConversationLine,
} from './find-trailing-orphans';
import { readLines } from './read-lines';
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
 * assistant message that no later tool result answers. Reads only the last `tailBytes` bytes.
 * Lines that do not parse (a torn last line, a corrupt line) are skipped. A missing, empty,
 * non-regular or symlinked file gives `[]`; use `getTranscriptFileStatus` to tell those apart.
 */
export async function findOrphanedToolUses(
  path: string,
  options: FindOrphanedToolUsesOptions,
): Promise<string[]> {
  const lines = await readConversationTail(path, options);
  return findTrailingOrphans(lines);
}

/** Reads the conversation lines of a transcript's bounded tail; `[]` for anything unreadable as a file. */
export async function readConversationTail(
  path: string,
  options: FindOrphanedToolUsesOptions,
): Promise<ConversationLine[]> {
  options.signal?.throwIfAborted();
  const stats = await lstatIfExists(path);
  if (stats === undefined || !stats.isFile() || stats.size === 0) return [];
  let handle: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    handle = await openRegularFile(path, constants.O_RDONLY);
  } catch {
    return [];
  }
  try {
    const size = (await handle.stat()).size;
    const start = Math.max(0, size - (options.tailBytes ?? DEFAULT_INSPECT_TAIL_BYTES));
    const lines: ConversationLine[] = [];
    for await (const line of readLines(handle, { start, end: size })) {
      let value: unknown;
      try {
        value = JSON.parse(line.text);
      } catch {
        continue;
      }
      const conversation = toConversationLine(value, options.format);
      if (conversation !== undefined) lines.push(conversation);
    }
    options.signal?.throwIfAborted();
    return lines;
  } finally {
    await handle.close();
  }
}
