import type { ReadableFile } from './file-system';

export interface FileLine {
  /** The line without its `\n`, decoded as UTF-8. */
  text: string;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** False for a last line that has no `\n` (a torn or in-flight write). */
  terminated: boolean;
}

export interface ReadLinesOptions {
  /** Bytes read per call; default 64 KiB. */
  chunkSize?: number;
  /** Checked before every read: an abort stops the scan within one chunk. */
  signal?: AbortSignal;
}

const newline = 0x0a;

/**
 * Yields the lines of `file` between byte `start` and `end`, reading `chunkSize` bytes at a
 * time. When `start` is not 0 and does not sit just after a `\n`, the partial first line is
 * skipped, so only whole lines come out. Memory use is one chunk plus the longest line.
 */
export async function* readLines(
  file: ReadableFile,
  range: { start: number; end: number },
  options: ReadLinesOptions = {},
): AsyncGenerator<FileLine> {
  const chunkSize = options.chunkSize ?? 64 * 1024;
  const { signal } = options;
  let position = range.start;
  let skipping = false;
  if (position > 0) {
    const probe = Buffer.alloc(1);
    await file.read(probe, 0, 1, position - 1);
    skipping = probe[0] !== newline;
  }
  let pending: Buffer[] = [];
  let pendingOffset = position;
  const buffer = Buffer.allocUnsafe(chunkSize);
  while (position < range.end) {
    signal?.throwIfAborted();
    const want = Math.min(chunkSize, range.end - position);
    const { bytesRead } = await file.read(buffer, 0, want, position);
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
        const text =
          pending.length === 0
            ? buffer.toString('utf8', lineStart, index)
            : Buffer.concat([...pending, buffer.subarray(lineStart, index)]).toString('utf8');
        yield { text, offset: pendingOffset, terminated: true };
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
