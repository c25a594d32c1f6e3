import { setFlagsFromString } from 'node:v8';

/** The V8 flag the gateway sets when `node` was started without a heap choice: a small heap. */
export const HEAP_FLAG = '--optimize-for-size';

/**
 * The young generation the project's own start command gives `node` (`pnpm start`; V8 reads it
 * only at launch, so a running process cannot set it): 4 MiB semi-spaces, 8 MiB of young
 * generation instead of V8's 32 MiB. `NODE_OPTIONS` may carry it (`npx keel-gateway` included).
 */
export const YOUNG_GENERATION_FLAG = '--max-semi-space-size=4';

/**
 * The V8 flag the gateway sets when the young generation was chosen at launch: the old generation
 * may grow 15 % past what the last full collection found alive before the next one (V8 lets it
 * grow up to 4× by its own heuristics). V8 honours it after start-up.
 */
export const OLD_GENERATION_FLAG = '--heap-growing-percent=15';

const OPTIMIZE_FOR_SIZE = /^--(no-)?optimize[-_]for[-_]size$/;
const HEAP_GROWING = /^--heap[-_]growing[-_]percent(=|$)/;
const SEMI_SPACE = /^--max[-_]semi[-_]space[-_]size(=|$)/;

/**
 * Keeps the gateway's resident memory near what it keeps (issue 20). By its own heuristics V8 lets
 * a busy process's heap grow well past what is alive (a 32 MiB young generation, an old generation
 * up to four times its live objects), and that memory stays resident.
 *
 * - `node` started with a young generation (`--max-semi-space-size`, on its command line or in
 *   `NODE_OPTIONS`, as `pnpm start` does with {@link YOUNG_GENERATION_FLAG}): sets
 *   {@link OLD_GENERATION_FLAG}, which bounds the old generation.
 * - `node` started with neither: sets {@link HEAP_FLAG}, which V8 also honours after start-up (a
 *   smaller young generation and compacted old-generation pages) at more collection work.
 * - `node` given its own choice (`--optimize-for-size`, `--no-optimize-for-size`,
 *   `--heap-growing-percent`): sets nothing.
 *
 * Side by side (BENCHMARKS.md, "Issue 20: bounded memory"), both stay under 200 MiB and flat over
 * 100 000 messages; the launch choice costs a fifth to a third less CPU per message than
 * {@link HEAP_FLAG}; V8's defaults, or a smaller young generation alone, pass 200 MiB.
 * Returns the flag set, or `undefined`.
 */
export function boundHeap(
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = setFlagsFromString,
  nodeOptions: string = process.env['NODE_OPTIONS'] ?? '',
): string | undefined {
  const launch = [...execArgv, ...nodeOptions.split(/\s+/)];
  const given = (pattern: RegExp) => launch.some((arg) => pattern.test(arg));
  if (given(OPTIMIZE_FOR_SIZE) || given(HEAP_GROWING)) return undefined;
  const flag = given(SEMI_SPACE) ? OLD_GENERATION_FLAG : HEAP_FLAG;
  setFlags(flag);
  return flag;
}
