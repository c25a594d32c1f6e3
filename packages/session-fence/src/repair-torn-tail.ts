import { closesBatch, isContinued } from './batch-framing';
import { type FileSystem, readableFile } from './file-system';
import { readLinesBackward } from './read-lines-backward';

const newline = 0x0a;
const space = 0x20;

/**
 * Whether a file whose last bytes are `tail` was left unfinished by a writer: its last line has
 * no newline, or its last line is a continued line of a batch whose last line never came. O(1):
 * the caller already holds the file's last bytes.
 */
export function mayBeTorn(tail: Buffer): boolean {
  const length = tail.length;
  if (length === 0) return false;
  if (tail[length - 1] !== newline) return true;
  return length >= 2 && tail[length - 2] === space;
}

export type TornTailRepair =
  /** The last line is whole and only lacks its newline: the append writes one first. */
  | { kind: 'terminate' }
  /** The torn line and any unclosed batch before it were cut off; the file is now `size` bytes. */
  | { kind: 'truncated'; size: number };

/**
 * Repairs what a crashed writer left at the end of the open transcript `fd` of `size` bytes, so
 * that the next append starts on a line of its own and never completes someone else's torn batch.
 * A last line that holds whole JSON (any JSON: a headerless version 0 message has no `type`)
 * only lost its newline and is kept. A torn last line is cut off, and so are the lines of the
 * batch it belonged to (see `batch-framing.ts`). A complete line outside an unfinished batch is
 * never dropped. When everything is cut (a torn header), the file is empty again and the caller
 * writes a new header.
 */
export async function repairTornTail(
  fileSystem: FileSystem,
  fd: number,
  size: number,
  signal?: AbortSignal,
): Promise<TornTailRepair | undefined> {
  let cut = size;
  for await (const line of readLinesBackward(
    readableFile(fileSystem, fd),
    { start: 0, end: size },
    { signal },
  )) {
    if (line.terminated ? !isContinued(line.text) : closesBatch(line)) {
      if (!line.terminated) return { kind: 'terminate' };
      break;
    }
    cut = line.offset;
  }
  if (cut === size) return undefined;
  await fileSystem.ftruncate(fd, cut);
  return { kind: 'truncated', size: cut };
}
