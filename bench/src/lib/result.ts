import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RESULTS_DIR, SMOKE } from './env';
import { renderResult } from './markdown';

export interface Table {
  columns: string[];
  rows: string[][];
}

/** A target and how this run did against it. */
export interface Target {
  /** What is compared, e.g. "p50 overhead at 1 in flight". */
  name: string;
  /** The goal, e.g. "< 1 ms". */
  goal: string;
  /** What this run measured, e.g. "0.84 ms". */
  measured: string;
  met: boolean;
  /** Why, when not met (or what it hinges on). */
  why?: string;
}

/** What one benchmark file reports: one section of `BENCHMARKS.md`. */
export interface BenchResult {
  /** Sorts the sections: the row number, or past them for the extra rows. */
  order: number;
  /** E.g. "1. Gateway overhead". */
  title: string;
  /** What is measured and how (variants, rounds, warm-up). */
  method: string;
  /** The named baseline every ratio is taken against, measured in the same run. */
  baseline: string;
  tables: Array<{ caption?: string; table: Table }>;
  targets: Target[];
  /** Where the time goes, caveats, how to extend the row. */
  notes: string[];
}

/** Prints the result as Markdown and, under `run-all`, leaves it for `BENCHMARKS.md`. */
export async function publish(result: BenchResult): Promise<void> {
  console.log(renderResult(result, SMOKE));
  if (RESULTS_DIR !== undefined) {
    const name = `${String(result.order).padStart(3, '0')}.json`;
    await writeFile(join(RESULTS_DIR, name), JSON.stringify(result, null, 2));
  }
}
