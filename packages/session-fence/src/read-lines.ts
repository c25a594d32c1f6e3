import type { FileHandle } from 'node:fs/promises';

export interface FileLine {
  /** The line without its `\n`, decoded as UTF-8. */
  text: string;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** False for a last line that has no `\n` (a torn or in-flight write). */
  terminated: boolean;
}

const newline = 0x0a;

/**
 * Yields the lines of `handle` between byte `start` and `end`, reading `chunkSize` bytes at a
 * time. When `start` is not 0 and does not sit just after a `\n`, the partial first line is
 * skipped, so only whole lines come out. Memory use is one chunk plus the longest line.
 */
export async function* readLines(
  handle: FileHandle,
  range: { start: number; end: number },
  chunkSize = 64 * 1024,
): AsyncGenerator<FileLine> {
  let position = range.start;
  let skipping = false;
  if (position > 0) {
    const probe = Buffer.alloc(1);
    await handle.read(probe, 0, 1, position - 1);
    skipping = probe[0] !== newline;
  }
  let pending: Buffer[] = [];
  let pendingOffset = position;
  const buffer = Buffer.alloc(chunkSize);
  while (position < range.end) {
    const want = Math.min(chunkSize, range.end - position);
    const { bytesRead } = await handle.read(buffer, 0, want, position);
    if (bytesRead === 0) break;
    let lineStart = 0;
    for (
      let index = buffer.indexOf(newline, 0);
      index !== -1 && index < bytesRead;
      index = buffer.indexOf(newline, index + 1)
    ) {
      if (skipping) {
        skipping = false;
      } else {
        pending.push(buffer.subarray(lineStart, index));
        yield {
          text: Buffer.concat(pending).toString('utf8'),
          offset: pendingOffset,
          terminated: true,
        };
      }
      pending = [];
      lineStart = index + 1;
      pendingOffset = position + lineStart;
    }
    if (!skipping && lineStart < bytesRead)
      pending.push(Buffer.from(buffer.subarray(lineStart, bytesRead)));
    position += bytesRead;
  }
  if (!skipping && pending.length > 0) {
    yield {
      text: Buffer.concat(pending).toString('utf8'),
      offset: pendingOffset,
      terminated: false,
    };
  }
}
