// The gateway command bounds V8's heap unless node was given its own choice: the old generation's
// growth when node was started with a young generation (as `pnpm start` does), else a small heap;
// each flag it sets is one V8 honours after start-up: a process that keeps a steady working set
// while it allocates keeps a much smaller heap with it than without it.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { boundHeap, HEAP_FLAG, OLD_GENERATION_FLAG, YOUNG_GENERATION_FLAG } from './bound-heap';

const run = promisify(execFile);

/** Peak `heapTotal` (MiB) of a child that keeps about 300 000 small objects while it churns. */
async function peakHeapMiB(flag: string | undefined, launch: string[] = []): Promise<number> {
  const script = `
    const v8 = require('node:v8');
    if (process.argv[1]) v8.setFlagsFromString(process.argv[1]);
    const kept = [];
    let peak = 0;
    for (let i = 0; i < 3_000_000; i += 1) {
      const item = { text: 'x'.repeat(20) + i, pair: [i, i + 1] };
      if (i % 3 === 0) kept.push(item);
      if (kept.length > 300_000) kept.splice(0, 100_000);
      if (i % 10_000 === 0) peak = Math.max(peak, process.memoryUsage().heapTotal);
    }
    process.stdout.write(String(peak / 1048576));
  `;
  const { stdout } = await run(process.execPath, [...launch, '-e', script, flag ?? ''], {
    timeout: 200_000,
  });
  return Number(stdout);
}

describe('boundHeap', () => {
  it(`sets ${HEAP_FLAG} when node was started without a choice`, () => {
    const set: string[] = [];
    const flag = boundHeap(['--enable-source-maps'], (flags) => set.push(flags), '--inspect=0');
    expect(flag).toBe('--optimize-for-size');
    expect(set).toEqual([flag]);
  });

  it('bounds the old generation when node was started with a young generation', () => {
    for (const [execArgv, nodeOptions] of [
      [[YOUNG_GENERATION_FLAG], ''],
      [['--max_semi_space_size', '2'], ''],
      [[], `--trace-warnings ${YOUNG_GENERATION_FLAG}`],
    ] as const) {
      const set: string[] = [];
      expect(boundHeap(execArgv, (flags) => set.push(flags), nodeOptions)).toBe(
        '--heap-growing-percent=15',
      );
      expect(set).toEqual([OLD_GENERATION_FLAG]);
    }
  });

  it("leaves node's own choice alone, either way and however it is spelled", () => {
    for (const arg of [
      '--no-optimize-for-size',
      '--optimize_for_size',
      '--heap-growing-percent=30',
    ]) {
      const set: string[] = [];
      expect(
        boundHeap([arg, YOUNG_GENERATION_FLAG], (flags) => set.push(flags), ''),
      ).toBeUndefined();
      expect(boundHeap([arg], (flags) => set.push(flags), '')).toBeUndefined();
      expect(set).toEqual([]);
    }
  });

  it("is what the project's start command launches with", () => {
    const root = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    );
    expect(root.scripts.start.split(' ')).toContain(YOUNG_GENERATION_FLAG);
  });

  it('sets a flag V8 honours at run time: the heap stays near what is kept', async () => {
    const flag = boundHeap([], () => {}, '');
    const [unbounded, bounded] = await Promise.all([peakHeapMiB(undefined), peakHeapMiB(flag)]);
    // Measured here: about 298 MiB without the flag, 125 MiB with it.
    expect(bounded).toBeLessThan(unbounded * 0.75);
  }, 240_000);

  it('bounds the old generation at run time, after a young generation chosen at launch', async () => {
    const launch = [YOUNG_GENERATION_FLAG];
    const flag = boundHeap(launch, () => {}, '');
    const [unbounded, bounded] = await Promise.all([
      peakHeapMiB(undefined, launch),
      peakHeapMiB(flag, launch),
    ]);
    // Measured here: about 221 MiB with the young generation alone, 108 MiB with the flag too.
    expect(bounded).toBeLessThan(unbounded * 0.75);
  }, 240_000);
});
