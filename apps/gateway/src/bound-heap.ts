import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/** The V8 flag the gateway sets when `node` was started without a heap choice: a small heap. */
export const HEAP_FLAG = '--optimize-for-size';

/**
 * The young generation the project's own start command gives `node` (`pnpm start`; V8 reads it
 * only at launch, so a running process cannot set it): 4 MiB semi-spaces, 8 MiB of young
 * generation instead of V8's 32 MiB. `NODE_OPTIONS` may carry it (`npx keel-gateway` included).
 */
export const YOUNG_GENERATION_FLAG = '--max-semi-space-size=4';

/**
 * How far the old generation may grow past what the last full collection found alive, when the
 * young generation was chosen at launch: this many bytes, or {@link OLD_GENERATION_GROWING_PERCENT}
 * of what is alive when that is more. A fixed share alone made a small heap collect all the time
 * (15 % of 35 MiB is a full collection every 5 MiB promoted: a fifth of the gateway's CPU per
 * message at 64 sessions); a large heap still grows by its share (BENCHMARKS.md, "Issue 20:
 * bounded memory").
 */
export const OLD_GENERATION_HEADROOM_BYTES = 16 * 1024 * 1024;
/** The old generation's growth past what is alive, at least (see the headroom above). */
export const OLD_GENERATION_GROWING_PERCENT = 15;
/** V8's own heuristics let the old generation grow to 4× what is alive, at most. */
export const MOST_GROWING_PERCENT = 300;

/** What the listening line's `heap` field says when the gateway follows the old generation. */
export const OLD_GENERATION_BOUND = `--heap-growing-percent: ${OLD_GENERATION_HEADROOM_BYTES / 1024 / 1024} MiB or ${OLD_GENERATION_GROWING_PERCENT} % past what is alive`;

const OPTIMIZE_FOR_SIZE = /^--(no-)?optimize[-_]for[-_]size$/;
const HEAP_GROWING = /^--heap[-_]growing[-_]percent(=|$)/;
const SEMI_SPACE = /^--max[-_]semi[-_]space[-_]size(=|$)/;

/** The `--heap-growing-percent` that gives an old generation with `liveBytes` alive its headroom. */
export function growingPercentFor(liveBytes: number): number {
  const wanted = Math.ceil((OLD_GENERATION_HEADROOM_BYTES * 100) / Math.max(liveBytes, 1));
  return Math.min(MOST_GROWING_PERCENT, Math.max(OLD_GENERATION_GROWING_PERCENT, wanted));
}

/** What `boundHeap` reads of the running process: the bytes alive, and when a full collection ended. */
export interface HeapWatch {
  /** The heap's bytes in use now (right after a full collection: about what is alive). */
  liveBytes(): number;
  /** Calls `listener` after each full collection; returns the function that stops it. */
  onFullCollection(listener: () => void): () => void;
}

const FULL_COLLECTION = constants.NODE_PERFORMANCE_GC_MAJOR;

/** The kind of collection a `gc` performance entry tells of (`NODE_PERFORMANCE_GC_*`). */
function gcKind(entry: object): number | undefined {
  return (entry as { detail?: { kind?: number } }).detail?.kind;
}

/** The running process's heap, its full collections seen through `perf_hooks`. */
export const processHeap: HeapWatch = {
  liveBytes: () => getHeapStatistics().used_heap_size,
  onFullCollection(listener) {
    const observer = new PerformanceObserver((list) => {
      const full = list.getEntries().some((entry) => gcKind(entry) === FULL_COLLECTION);
      if (full) listener();
    });
    observer.observe({ entryTypes: ['gc'] });
    return () => observer.disconnect();
  },
};

/**
 * Keeps the gateway's resident memory near what it keeps (issue 20). By its own heuristics V8 lets
 * a busy process's heap grow well past what is alive (a 32 MiB young generation, an old generation
 * up to four times its live objects), and that memory stays resident.
 *
 * - `node` started with a young generation (`--max-semi-space-size`, on its command line or in
 *   `NODE_OPTIONS`, as `pnpm start` does with {@link YOUNG_GENERATION_FLAG}): bounds the old
 *   generation to {@link OLD_GENERATION_HEADROOM_BYTES} or {@link OLD_GENERATION_GROWING_PERCENT}
 *   past what is alive, whichever is more: it sets `--heap-growing-percent` now and again after
 *   each full collection, for what that collection left (V8 reads the flag at each collection).
 * - `node` started with neither: sets {@link HEAP_FLAG}, which V8 also honours after start-up (a
 *   smaller young generation and compacted old-generation pages) at more collection work.
 * - `node` given its own choice (`--optimize-for-size`, `--no-optimize-for-size`,
 *   `--heap-growing-percent`): sets nothing.
 *
 * Side by side (BENCHMARKS.md, "Issue 20: bounded memory"), both stay under 200 MiB and flat over
 * 100 000 messages; the launch choice costs a fifth to a third less CPU per message than
 * {@link HEAP_FLAG}; V8's defaults, or a smaller young generation alone, pass 200 MiB.
 * Returns what it set ({@link HEAP_FLAG} or {@link OLD_GENERATION_BOUND}), or `undefined`.
 */
export function boundHeap(
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = setFlagsFromString,
  nodeOptions: string = process.env['NODE_OPTIONS'] ?? '',
  heap: HeapWatch = processHeap,
): string | undefined {
  const launch = [...execArgv, ...nodeOptions.split(/\s+/)];
  const given = (pattern: RegExp) => launch.some((arg) => pattern.test(arg));
  if (given(OPTIMIZE_FOR_SIZE) || given(HEAP_GROWING)) return undefined;
  if (!given(SEMI_SPACE)) {
    setFlags(HEAP_FLAG);
    return HEAP_FLAG;
  }
  let percent: number | undefined;
  const follow = () => {
    const next = growingPercentFor(heap.liveBytes());
    if (next === percent) return;
    percent = next;
    setFlags(`--heap-growing-percent=${next}`);
  };
  follow();
  heap.onFullCollection(follow);
  return OLD_GENERATION_BOUND;
}
