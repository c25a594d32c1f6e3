import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../test/support';
import { type FileLine, readLines } from './read-lines';
import { readLinesBackward } from './read-lines-backward';

const temp = useTempDir();

async function collect(lines: AsyncGenerator<FileLine>): Promise<FileLine[]> {
  const out: FileLine[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

/** A deterministic pseudo-random generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe('readLines and readLinesBackward', () => {
  it('split the same text into the same lines, in opposite orders, at any chunk size and start', async () => {
    const next = random(42);
    for (let round = 0; round < 40; round += 1) {
      const count = Math.floor(next() * 8);
      const lines = Array.from({ length: count }, () => 'é{x}'.repeat(Math.floor(next() * 5)));
      const text = lines.join('\n') + (next() < 0.5 ? '\n' : '');
      const path = join(temp.path, `f${round}`);
      await writeFile(path, text);
      const size = Buffer.byteLength(text);
      const start = Math.floor(next() * (size + 1));
      const handle = await open(path, 'r');
      try {
        const forward = await collect(readLines(handle, { start, end: size }, { chunkSize: 64 }));
        for (const chunkSize of [1, 2, 3, 7, 64]) {
          const backward = await collect(
            readLinesBackward(handle, { start, end: size }, { chunkSize }),
          );
          expect(
            backward.reverse(),
            `round ${round} chunk ${chunkSize} start ${start} text ${JSON.stringify(text)}`,
          ).toEqual(forward);
          expect(await collect(readLines(handle, { start, end: size }, { chunkSize }))).toEqual(
            forward,
          );
        }
        if (start === 0) {
          expect(
            forward.map((line) => line.text).join('\n') + (forward.at(-1)?.terminated ? '\n' : ''),
          ).toBe(text.endsWith('\n') || text === '' ? text : text);
        }
      } finally {
        await handle.close();
      }
    }
  });

  it('mark an unterminated last line and skip a partial first line', async () => {
    const path = join(temp.path, 'f');
    await writeFile(path, 'alpha\nbeta\ngam');
    const handle = await open(path, 'r');
    try {
      const lines = await collect(readLines(handle, { start: 2, end: 14 }));
      expect(lines).toEqual([
        { text: 'beta', offset: 6, terminated: true },
        { text: 'gam', offset: 11, terminated: false },
      ]);
      expect(
        (
          await collect(readLinesBackward(handle, { start: 2, end: 14 }, { chunkSize: 4 }))
        ).reverse(),
      ).toEqual(lines);
    } finally {
      await handle.close();
    }
  });
});
