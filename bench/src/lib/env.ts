/**
 * How a benchmark run is configured: `BENCH_SMOKE=1` shrinks every benchmark to a seconds-long
 * check that it still runs (CI); `BENCH_RESULTS_DIR` is where each benchmark writes its result
 * for `run-all.ts` to assemble `BENCHMARKS.md`.
 */
export const SMOKE = process.env['BENCH_SMOKE'] === '1';

/** `full` in a real run, `smoke` in a smoke run. */
export function pick<T>(full: T, smoke: T): T {
  return SMOKE ? smoke : full;
}

export const RESULTS_DIR = process.env['BENCH_RESULTS_DIR'];
