// The gateway command bounds V8's heap unless node was given its own choice: the old generation's
// growth when node was started with a young generation (as `pnpm start` does: 16 MiB or 15 % past
// what is alive, set again after each full collection), else a small heap; each flag it sets is
// one V8 honours after start-up: a process that keeps a steady working set while it allocates
// keeps a much smaller heap with it than without it.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  boundHeap,
  growingPercentFor,
  HEAP_FLAG,
  type HeapWatch,
  OLD_GENERATION_BOUND,
  OLD_GENERATION_GROWING_PERCENT,
  processHeap,
  YOUNG_GENERATION_FLAG,
} from './bound-heap';

const run = promisify(execFile);

/**
 * Peak `heapTotal` (MiB) of a child that keeps about 300 000 small objects while it churns. The
 * child is a script file, as the gateway is: on Node 24 a flag set at run time by code given with
 * `-e` barely moved its heap (about 300 against 316 MiB), while from a file it holds it to 110.
 */
async function peakHeapMiB(flag: string | undefined, launch: string[] = []): Promise<number> {
  const script = `
    const v8 = require('node:v8');
    if (process.argv[2]) v8.setFlagsFromString(process.argv[2]);
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
  const dir = await mkdtemp(join(tmpdir(), 'keel-heap-child-'));
  try {
    const path = join(dir, 'churn.cjs');
    await writeFile(path, script);
    const { stdout } = await run(process.execPath, [...launch, path, flag ?? ''], {
      timeout: 200_000,
    });
    return Number(stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const MiB = 1024 * 1024;

/** A heap whose live bytes the test sets, and whose full collections it runs (`collect`). */
function fakeHeap(initial: number): HeapWatch & { collect(live: number): void } {
  let live = initial;
  const listeners: Array<() => void> = [];
  return {
    liveBytes: () => live,
    onFullCollection(listener) {
      listeners.push(listener);
      return () => listeners.splice(listeners.indexOf(listener), 1);
    },
    collect(next) {
      live = next;
      for (const listener of listeners) listener();
    },
  };
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
      const heap = fakeHeap(40 * MiB);
      expect(boundHeap(execArgv, (flags) => set.push(flags), nodeOptions, heap)).toBe(
        OLD_GENERATION_BOUND,
      );
      // 16 MiB past 40 MiB alive.
      expect(set).toEqual(['--heap-growing-percent=40']);
    }
  });

  it('sets the growth again after each full collection, for what it left alive', () => {
    const set: string[] = [];
    const heap = fakeHeap(20 * MiB);
    boundHeap([YOUNG_GENERATION_FLAG], (flags) => set.push(flags), '', heap);
    heap.collect(64 * MiB);
    heap.collect(64.1 * MiB); // the same percent: not set again
    heap.collect(160 * MiB);
    heap.collect(8 * MiB);
    expect(set).toEqual([
      '--heap-growing-percent=80',
      '--heap-growing-percent=25',
      '--heap-growing-percent=15',
      '--heap-growing-percent=200',
    ]);
  });

  it('grows the old generation 16 MiB or 15 % past what is alive, whichever is more, up to V8’s 4×', () => {
    expect(growingPercentFor(32 * MiB)).toBe(50);
    expect(growingPercentFor(100 * MiB)).toBe(16); // 16 % of 100 MiB is the 16 MiB
    expect(growingPercentFor((16 / 0.15) * MiB)).toBe(15);
    expect(growingPercentFor(110 * MiB)).toBe(15);
    expect(growingPercentFor(1024 * MiB)).toBe(15);
    expect(growingPercentFor(6 * MiB)).toBe(267);
    expect(growingPercentFor(5 * MiB)).toBe(300);
    expect(growingPercentFor(0)).toBe(300);
  });

  it('follows the full collections of this very process', async () => {
    const live: number[] = [];
    const set: string[] = [];
    const watch: HeapWatch = {
      liveBytes() {
        const bytes = processHeap.liveBytes();
        live.push(bytes);
        return bytes;
      },
      onFullCollection: (listener) => {
        const stop = processHeap.onFullCollection(listener);
        stops.push(stop);
        return stop;
      },
    };
    const stops: Array<() => void> = [];
    // Every collection, counted on the side: the bound follows the full ones only.
    const kinds = { full: 0, other: 0 };
    const counter = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const { detail } = entry as { detail?: { kind?: number } };
        const full = detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
        kinds[full ? 'full' : 'other'] += 1;
      }
    });
    counter.observe({ entryTypes: ['gc'] });
    stops.push(() => counter.disconnect());
    boundHeap([YOUNG_GENERATION_FLAG], (flags) => set.push(flags), '', watch);
    try {
      // A growing set of kept objects among short-lived ones, until V8 has run full collections.
      const kept: Array<{ text: string }> = [];
      for (let round = 0; round < 400 && live.length < 4; round += 1) {
        for (let i = 0; i < 20_000; i += 1) {
          const item = { text: `${'x'.repeat(40)}${round}:${i}` };
          if (i % 4 === 0) kept.push(item);
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(live.length).toBeGreaterThanOrEqual(4);
      await new Promise((resolve) => setImmediate(resolve));
      expect(kinds.other).toBeGreaterThan(kinds.full);
      expect(live.length - 1).toBeLessThanOrEqual(kinds.full);
      // Each time, the percent for what was in use then (set only when it changed).
      const last = live[live.length - 1] as number;
      expect(set.at(-1)).toBe(`--heap-growing-percent=${growingPercentFor(last)}`);
      expect(set.length).toBeGreaterThan(1);
      expect(kept.length).toBeGreaterThan(0);
    } finally {
      for (const stop of stops) stop();
    }
  }, 120_000);

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
    // The child sets, at start-up, the least growth this bound gives (that of a heap of 107 MiB
    // or more alive): V8 honours a percent set at run time. Following the full collections is
    // checked above, in this process.
    const flag = `--heap-growing-percent=${OLD_GENERATION_GROWING_PERCENT}`;
    const [unbounded, bounded] = await Promise.all([
      peakHeapMiB(undefined, launch),
      peakHeapMiB(flag, launch),
    ]);
    // Measured here: about 221 MiB with the young generation alone, 108 MiB with the flag too.
    expect(bounded).toBeLessThan(unbounded * 0.75);
  }, 240_000);
});
