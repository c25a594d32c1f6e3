/**
 * The backward line reader stays linear when no newline is found for a long way (a claude-cli
 * transcript whose last line is megabytes long), and an abort stops it within one chunk.
 */
import { type FileHandle, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordingFileSystem, textMessage, useTempDir } from '../test/support';
import type { ReadableFile } from './file-system';
import type { FileLine } from './read-lines';
import { readLinesBackward } from './read-lines-backward';
import { createTranscriptStoreWith } from './transcript-store';

const temp = useTempDir();
const chunkSize = 64 * 1024;
const longLine = 4 * 1024 * 1024;

afterEach(() => {
  vi.restoreAllMocks();
});

/** A file with a short first line and a 4 MiB last line without a newline. */
async function longLastLine(): Promise<{ handle: FileHandle; size: number }> {
  const path = join(temp.path, 'long.jsonl');
  const text = `{"first":true}\n{"text":"${'x'.repeat(longLine - 11)}"}`;
  await writeFile(path, text);
  return { handle: await open(path, 'r'), size: Buffer.byteLength(text) };
}

/** Counts what is read through `handle`; `onRead` runs before each read. */
function counted(
  handle: FileHandle,
  onRead: (reads: number) => void = () => {},
): ReadableFile & { reads: number; bytes: number } {
  const file = {
    reads: 0,
    bytes: 0,
    async read(buffer: Uint8Array, offset: number, length: number, position: number) {
      file.reads += 1;
      onRead(file.reads);
      const result = await handle.read(buffer, offset, length, position);
      file.bytes += result.bytesRead;
      return { bytesRead: result.bytesRead };
    },
  };
  return file;
}

describe('readLinesBackward', () => {
  it('reads and copies each byte of a 4 MiB line a bounded number of times, not once per chunk', async () => {
    const { handle, size } = await longLastLine();
    const concat = vi.spyOn(Buffer, 'concat');
    try {
      const file = counted(handle);
      const lines: FileLine[] = [];
      for await (const line of readLinesBackward(file, { start: 0, end: size }, { chunkSize })) {
        lines.push(line);
      }
      expect(lines.map((line) => line.text.length)).toEqual([longLine, 14]);
      expect(lines[0]?.terminated).toBe(false);
      // Every byte read once, in chunks.
      expect(file.bytes).toBe(size);
      expect(file.reads).toBeLessThanOrEqual(Math.ceil(size / chunkSize) + 1);
      // The pieces of the long line are joined once: the bytes copied stay linear in its size.
      const copied = concat.mock.results.reduce(
        (total, result) => total + (result.value as Buffer).length,
        0,
      );
      expect(copied).toBeLessThanOrEqual(2 * size);
    } finally {
      await handle.close();
    }
  });

  it('stops at the next chunk once its signal aborts, inside a line without a newline', async () => {
    const { handle, size } = await longLastLine();
    const controller = new AbortController();
    let readsAfterAbort = 0;
    const file = counted(handle, (reads) => {
      if (controller.signal.aborted) readsAfterAbort += 1;
      // The abort arrives while the fourth chunk is being read.
      if (reads === 4) controller.abort(new Error('stop'));
    });
    try {
      const lines = readLinesBackward(
        file,
        { start: 0, end: size },
        { chunkSize, signal: controller.signal },
      );
      const outcome = await (async () => {
        for await (const _line of lines) {
          // Never reached: the first line ends 4 MiB back.
        }
      })().then(
        () => 'finished',
        (error: unknown) => error,
      );
      expect(outcome).toBe(controller.signal.reason);
      expect(file.reads).toBe(4);
      expect(readsAfterAbort).toBe(0);
    } finally {
      await handle.close();
    }
  });
});

describe('the store inspecting a transcript whose last line is huge', () => {
  it('sees an abort within one chunk, not after reading the whole window', async () => {
    const controller = new AbortController();
    let reads = 0;
    let readsAfterAbort = 0;
    let armed = false;
    const { fileSystem } = recordingFileSystem({
      async read(real, fd, buffer, offset, length, position) {
        if (armed) {
          reads += 1;
          if (controller.signal.aborted) readsAfterAbort += 1;
          if (reads === 3) controller.abort(new Error('stop'));
        }
        return real(fd, buffer, offset, length, position);
      },
    });
    const store = createTranscriptStoreWith(fileSystem, {
      sessionsDir: join(temp.path, 'sessions'),
      fsync: false,
    });
    await store.append('s', [textMessage('huge', 'y'.repeat(8 * 1024 * 1024))]);
    armed = true;
    const outcome = await store
      .inspectTrailingToolUses('s', { maxBytes: 32 * 1024 * 1024, signal: controller.signal })
      .then(
        () => 'finished',
        (error: unknown) => error,
      );
    expect(outcome).toBe(controller.signal.reason);
    expect(readsAfterAbort).toBe(0);
    expect(reads).toBeLessThan(8);
  });
});
