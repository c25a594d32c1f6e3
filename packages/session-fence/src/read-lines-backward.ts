import type { FileHandle } from 'node:fs/promises';
import type { FileLine } from './read-lines';

const newline = 0x0a;

/**
 * Yields the lines of `handle` between byte `start` and `end` from the last to the first, reading
 * `chunkSize` bytes at a time from the end, so a caller that stops early reads only what it
 * needed. A partial first line (when `start` is not at a line start) is not yielded. The last
 * line is `terminated: false` when the range does not end in `\n`.
 */
export async function* readLinesBackward(
  handle: FileHandle,
  range: { start: number; end: number },
  chunkSize = 64 * 1024,
): AsyncGenerator<FileLine> {
  let position = range.end;
  let rest: Buffer = Buffer.alloc(0);
  let atEnd = true;
  while (position > range.start) {
    const readStart = Math.max(range.start, position - chunkSize);
    const chunk = Buffer.alloc(position - readStart);
    let filled = 0;
    while (filled < chunk.length) {
      const { bytesRead } = await handle.read(
        chunk,
        filled,
        chunk.length - filled,
        readStart + filled,
      );
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const buffer = rest.length === 0 ? chunk : Buffer.concat([chunk, rest]);
    let right = buffer.length;
    for (
      let index = buffer.lastIndexOf(newline, right - 1);
      index !== -1;
      index = right > 0 ? buffer.lastIndexOf(newline, right - 1) : -1
    ) {
      if (atEnd) {
        atEnd = false;
        if (index + 1 < right) {
          yield {
            text: buffer.toString('utf8', index + 1, right),
            offset: readStart + index + 1,
            terminated: false,
          };
        }
      } else {
        yield {
          text: buffer.toString('utf8', index + 1, right),
          offset: readStart + index + 1,
          terminated: true,
        };
      }
      right = index;
    }
    rest = Buffer.from(buffer.subarray(0, right));
    position = readStart;
  }
  // `rest` is the first line of the range: terminated if a newline followed it, else the only line.
  if (atEnd && rest.length === 0) return;
  if (range.start > 0) {
    const probe = Buffer.alloc(1);
    await handle.read(probe, 0, 1, range.start - 1);
    if (probe[0] !== newline) return;
  }
  yield { text: rest.toString('utf8'), offset: range.start, terminated: !atEnd };
}
