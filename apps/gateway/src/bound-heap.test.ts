// The gateway command asks V8 for a small heap unless node was given its own choice, and the flag
// it sets is one V8 honours after start-up: a process that keeps a steady working set while it
// allocates keeps a much smaller heap with it than without it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { boundHeap, HEAP_FLAG } from './bound-heap';

const run = promisify(execFile);

/** Peak `heapTotal` (MiB) of a child that keeps about 300 000 small objects while it churns. */
async function peakHeapMiB(flag: string | undefined): Promise<number> {
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
  const { stdout } = await run(process.execPath, ['-e', script, flag ?? ''], { timeout: 200_000 });
  return Number(stdout);
}

describe('boundHeap', () => {
  it(`sets ${HEAP_FLAG} when node was started without a choice`, () => {
    const set: string[] = [];
    const flag = boundHeap(['--enable-source-maps'], (flags) => set.push(flags));
    expect(flag).toBe('--optimize-for-size');
    expect(set).toEqual([flag]);
  });

  it("leaves node's own choice alone, either way and however it is spelled", () => {
    for (const arg of ['--no-optimize-for-size', '--optimize_for_size']) {
      const set: string[] = [];
      expect(boundHeap([arg], (flags) => set.push(flags))).toBeUndefined();
      expect(set).toEqual([]);
    }
  });

  it('sets a flag V8 honours at run time: the heap stays near what is kept', async () => {
    const flag = boundHeap([], () => {});
    const [unbounded, bounded] = await Promise.all([peakHeapMiB(undefined), peakHeapMiB(flag)]);
    // Measured here: about 298 MiB without the flag, 125 MiB with it.
    expect(bounded).toBeLessThan(unbounded * 0.75);
  }, 240_000);
});
