import { constants } from 'node:fs';
import type { TrailingToolUses } from '@keel/spec';
import { closesBatch, isContinued } from './batch-framing';
import { nodeFileSystem, type ReadableFile, readableFile } from './file-system';
import {
  type ConversationLine,
  findTrailingOrphans,
  type TranscriptFormat,
  toConversationLine,
} from './find-trailing-orphans';
import { readLinesBackward } from './read-lines-backward';
import { type OpenedFile, openRegularFileIfExists } from './safe-file';

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
  options.signal?.throwIfAborted();
  let opened: OpenedFile | undefined;
  try {
    opened = await openRegularFileIfExists(nodeFileSystem, path, constants.O_RDONLY);
  } catch {
    // Anything that cannot be opened as a regular file reads as empty (see above).
  }
  if (opened === undefined) return { orphans: [], complete: true };
  try {
    return await inspectTrailingToolUsesIn(
      readableFile(nodeFileSystem, opened.fd),
      Number(opened.stats.size),
      options,
    );
  } finally {
    await nodeFileSystem.close(opened.fd);
  }
}

/** The inspection of an open transcript of `size` bytes. */
export async function inspectTrailingToolUsesIn(
  file: ReadableFile,
  size: number,
  options: FindOrphanedToolUsesOptions,
): Promise<TrailingToolUses> {
  const tail = await readConversationTail(file, size, options);
  return { orphans: findTrailingOrphans(tail.lines), complete: tail.complete };
}

/**
 * Reads conversation lines backwards from the end of the file, at most `tailBytes`, and stops at
 * the first line of an earlier assistant message, so the work done is proportional to the size
 * of the last exchange, not of the file. Keel transcripts: the lines at the end that a crash left
 * unfinished (a torn last line, the lines of a batch whose last line is missing; see
 * `batch-framing.ts`) are not part of the transcript and are skipped.
 */
async function readConversationTail(
  file: ReadableFile,
  size: number,
  options: FindOrphanedToolUsesOptions,
): Promise<{ lines: ConversationLine[]; complete: boolean }> {
  if (size === 0) return { lines: [], complete: true };
  const start = Math.max(0, size - (options.tailBytes ?? DEFAULT_INSPECT_TAIL_BYTES));
  const reversed: ConversationLine[] = [];
  let last: ConversationLine | undefined;
  let reachedEarlierMessage = false;
  let unfinished = options.format === 'keel';
  for await (const line of readLinesBackward(
    file,
    { start, end: size },
    { signal: options.signal },
  )) {
    if (unfinished) {
      if (line.terminated ? isContinued(line.text) : !closesBatch(line)) continue;
      unfinished = false;
    }
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
}
