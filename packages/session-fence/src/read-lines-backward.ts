import { type ReadableFile, SYNC_IO_BYTES } from './file-system';
import type { FileLine, ReadLinesOptions } from './read-lines';

const newline = 0x0a;
const FIRST_CHUNK_BYTES = SYNC_IO_BYTES;

/**
 * Yields the lines of `file` between byte `start` and `end` from the last to the first, reading
 * from the end in chunks that double from 16 KiB up to `chunkSize`, so a caller that stops early
 * reads only what it needed. A partial first line (when `start` is not at a line start) is not yielded. The last
 * line is `terminated: false` when the range does not end in `\n`.
 *
 * Linear in the bytes it reads, however long a line is: each chunk is searched once, and the
 * pieces of a line that spans chunks are kept as they were read and joined once, when its start
 * is found. The signal is checked before and after every read.
 */
export async function* readLinesBackward(
  file: ReadableFile,
  range: { start: number; end: number },
  options: ReadLinesOptions = {},
): AsyncGenerator<FileLine> {
  const chunkSize = options.chunkSize ?? 64 * 1024;
  // The first read is small (one synchronous read, see `SYNC_IO_BYTES`): the last lines of a
  // transcript are usually short. Each next read doubles, up to `chunkSize`.
  let readSize = Math.min(FIRST_CHUNK_BYTES, chunkSize);
  const { signal } = options;
  let position = range.end;
  /** The pieces of the line being assembled, last piece first. */
  let pieces: Buffer[] = [];
  let atEnd = true;
  const assemble = (chunk: Buffer, from: number, to: number): string => {
    if (pieces.length === 0) return chunk.toString('utf8', from, to);
    pieces.push(chunk.subarray(from, to));
    return Buffer.concat(pieces.reverse()).toString('utf8');
  };
  while (position > range.start) {
    signal?.throwIfAborted();
    const readStart = Math.max(range.start, position - readSize);
    readSize = Math.min(readSize * 2, chunkSize);
    const chunk = Buffer.allocUnsafe(position - readStart);
    let filled = 0;
    while (filled < chunk.length) {
      const { bytesRead } = await file.read(
        chunk,
        filled,
        chunk.length - filled,
        readStart + filled,
      );
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    signal?.throwIfAborted();
    let right = filled;
    for (
      let index = right > 0 ? chunk.lastIndexOf(newline, right - 1) : -1;
      index !== -1;
      index = right > 0 ? chunk.lastIndexOf(newline, right - 1) : -1
    ) {
      const offset = readStart + index + 1;
      if (atEnd) {
        atEnd = false;
        if (index + 1 < right || pieces.length > 0) {
          yield { text: assemble(chunk, index + 1, right), offset, terminated: false };
        }
      } else {
        yield { text: assemble(chunk, index + 1, right), offset, terminated: true };
      }
      pieces = [];
      right = index;
    }
    if (right > 0) pieces.push(chunk.subarray(0, right));
    position = readStart;
  }
  // What is left is the first line of the range: terminated if a newline followed it.
  if (atEnd && pieces.length === 0) return;
  if (range.start > 0) {
    const probe = Buffer.alloc(1);
    await file.read(probe, 0, 1, range.start - 1);
    if (probe[0] !== newline) return;
  }
  const text = Buffer.concat(pieces.reverse()).toString('utf8');
  yield { text, offset: range.start, terminated: !atEnd };
}
