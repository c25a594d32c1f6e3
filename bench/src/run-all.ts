/**
 * Runs every `src/*.bench.ts` in its own process, one after another (no benchmark shares the event
 * loop or the heap with another), then writes `BENCHMARKS.md` at the repository root from what
 * each one reported. Usage: `pnpm bench` (all), `pnpm bench gateway` (files whose name contains
 * "gateway"; `BENCHMARKS.md` is then left alone), `pnpm bench:smoke` (`BENCH_SMOKE=1`: every
 * benchmark at tiny sizes, seconds long; it fails only when a benchmark crashes, never on a
 * missed target, and writes no `BENCHMARKS.md`); `pnpm bench failover --write` measures the
 * matching rows only and puts their sections and targets into the existing `BENCHMARKS.md`, each
 * marked with when it was measured (`lib/merge-benchmarks.ts`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMOKE } from './lib/env';
import { describeMachine, loadText } from './lib/machine';
import { renderResult, renderTable } from './lib/markdown';
import { mergeResults } from './lib/merge-benchmarks';
import type { BenchResult } from './lib/result';
import { WHERE_THE_TIME_GOES } from './where-the-time-goes';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const writeAlone = args.includes('--write');
const only = args.filter((arg) => arg !== '--write');
const files = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => only.length === 0 || only.some((filter) => name.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error('no benchmark matched');
  process.exit(1);
}

const machine = describeMachine();
const resultsDir = mkdtempSync(join(tmpdir(), 'keel-bench-results-'));
const crashed: string[] = [];
const started = Date.now();
for (const file of files) {
  console.log(`\n# ${file}${SMOKE ? ' (smoke)' : ''}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, file)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_RESULTS_DIR: resultsDir },
  });
  if (result.status !== 0) crashed.push(`${file} (exit ${result.status ?? result.signal})`);
}
const results = readdirSync(resultsDir)
  .sort()
  .map((name) => JSON.parse(readFileSync(join(resultsDir, name), 'utf8')) as BenchResult)
  .sort((a, b) => a.order - b.order);
rmSync(resultsDir, { recursive: true, force: true });
const endLoad = describeMachine().load;
const minutes = ((Date.now() - started) / 60_000).toFixed(1);

if (only.length === 0 && !SMOKE && crashed.length === 0) {
  const target = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));
  writeFileSync(target, document(results, endLoad, minutes));
  console.log(`\nwrote ${target}`);
  quoteInReadme(results);
} else if (only.length > 0 && writeAlone && !SMOKE && crashed.length === 0) {
  const target = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));
  const measured = `Measured on its own (\`pnpm bench ${only.join(' ')} --write\`) on ${machine.date.slice(0, 10)}, ${machine.cpu} × ${machine.cores} cores, load ${loadText(machine.load)} at start, ${loadText(endLoad)} at end, ${minutes} min; the machine table above is from the last full run.`;
  writeFileSync(
    target,
    mergeResults(readFileSync(target, 'utf8'), results, measured, WHERE_THE_TIME_GOES),
  );
  console.log(`\nwrote ${results.map((result) => result.title).join(', ')} into ${target}`);
}
console.log(
  `\nbenchmarks: ${files.length - crashed.length} ran, ${crashed.length} crashed${SMOKE ? ' (smoke: targets are not checked)' : ''}`,
);
for (const file of crashed) console.log(`crashed: ${file}`);
process.exit(crashed.length === 0 ? 0 : 1);

/** The README's quote of rows 1, 2 and 4, between its `keel-bench` markers (left alone without them). */
function quoteInReadme(list: BenchResult[]): void {
  const readme = fileURLToPath(new URL('../../README.md', import.meta.url));
  const text = readFileSync(readme, 'utf8');
  const start = '<!-- keel-bench:start -->';
  const end = '<!-- keel-bench:end -->';
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to < from) return;
  const quoted = list.filter((result) => [1, 2, 4].includes(result.order));
  const table = renderTable({
    columns: ['row', 'target', 'goal', 'measured', 'result'],
    rows: quoted.flatMap((result) =>
      result.targets.map((target) => [
        result.title,
        target.name,
        target.goal,
        target.measured,
        target.met ? 'met' : 'not met',
      ]),
    ),
  });
  const load = loadText(machine.load);
  const block = `${start}\n_${machine.date.slice(0, 10)}, ${machine.cpu} × ${machine.cores} cores, load ${load} at start, Node ${machine.node} (\`pnpm bench\` rewrites this quote)._\n\n${table}\n${end}`;
  writeFileSync(readme, text.slice(0, from) + block + text.slice(to + end.length));
  console.log(`quoted rows 1, 2 and 4 in ${readme}`);
}

function document(list: BenchResult[], load: readonly number[], duration: string): string {
  const summary = list.flatMap((result) =>
    result.targets.map((target) => [
      result.title,
      target.name,
      target.goal,
      target.measured,
      target.met ? 'met' : 'not met',
    ]),
  );
  return [
    '# Keel benchmarks',
    '',
    `Written by \`pnpm bench\` (\`bench/src/run-all.ts\`) on ${machine.date.slice(0, 10)}; do not edit by hand. Every figure is measured in one run, each row against its named baseline on the same loopback mock provider (\`@keel/testing\`), variants interleaved in rounds after a warm-up: the ratios are what to read, the absolute times belong to this machine and its load.`,
    '',
    '## Machine',
    '',
    renderTable({
      columns: [
        'CPU',
        'cores',
        'memory',
        'load average at start (1, 5, 15 min)',
        'at end',
        'Node',
        'platform',
        'run took',
      ],
      rows: [
        [
          machine.cpu,
          String(machine.cores),
          `${machine.memoryGiB} GiB`,
          loadText(machine.load),
          loadText(load),
          machine.node,
          machine.platform,
          `${duration} min`,
        ],
      ],
    }),
    '',
    "The machine is shared with other engineers' test runs (the load averages above), and its disk's fsync latency varies with them: that is why every row compares variants measured side by side, and why absolute times differ from run to run.",
    '',
    '## Targets',
    '',
    renderTable({ columns: ['row', 'target', 'goal', 'measured', 'result'], rows: summary }),
    '',
    ...list.map((result) => renderResult(result)),
    WHERE_THE_TIME_GOES,
    '',
  ].join('\n');
}
