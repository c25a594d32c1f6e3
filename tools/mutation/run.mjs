// `pnpm mutation`: Stryker over @keel/orchestrator, @keel/provider-health and
// @keel/error-classification (incremental),
// then MUTATION.md at the root: the score per package, per decision-core file, and every mutant
// that survived — with the reason it is equivalent when tools/mutation/equivalent.json gives one.
// Slow on two cores, so never part of CI or `pnpm check`.
//   MUTATION_PACKAGES=orchestrator     only these packages (comma-separated directory names)
//   MUTATION_FILES=src/decide.ts,...   only these files (globs, relative to the package); a file
//                                      can be run in parts (src/x.ts:1-150, then src/x.ts:151-300):
//                                      the parts' reports are folded into one row per file
//   MUTATION_CONCURRENCY=2             Stryker's test runners (default 1)
//   MUTATION_REPORT_ONLY=1             write MUTATION.md from the reports already there
//   MUTATION_RECHECK=1                 run again only the survivors not explained as equivalent
//                                      (their lines) and the files changed since (see recheck.mjs);
//                                      MUTATION_TAG=recheck-2 keeps an earlier recheck's report
//   MUTATION_TAG=name                  names a selection's report (default: its files, hashed if long)
// Each run also updates tools/mutation/results.json (in git, see ledger.mjs): every file's last
// result, so MUTATION.md keeps files run on other machines and marks those changed since.
// Run Stryker in a private clone (others' rebuilt dist gives false kills), then copy its
// packages/<name>/node_modules/.cache/stryker/{mutation,incremental}-<selection>.json into the same
// folder of this tree and write MUTATION.md here with MUTATION_REPORT_ONLY=1.
// tools/mutation/equivalent.json gives a survivor's reason under
// `<package>/<path>:<line>:<column>-<endLine>:<endColumn>:<mutator>:<replacement>` (as MUTATION.md
// prints it): the span, not the line alone, since two mutants can share a line and a start.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashOf, readLedger, span, summarize, survivorKey, writeLedger } from './ledger.mjs';
import { applyRecheck, recheckSelection } from './recheck.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PACKAGES = ['orchestrator', 'provider-health', 'error-classification'];
// The decision core per package. The orchestrator's src/health-rules.ts only re-exports
// @keel/provider-health's rules, so the health rules are mutated where they live.
const DECISION_CORE = {
  orchestrator: [
    'decide',
    'act-on-failure',
    'run-turn',
    'attempt-plan',
    'live-switch',
    'session-queue',
  ],
  'provider-health': ['health-rules'],
  'error-classification': [],
};
// A file of types alone (interfaces, type aliases) compiles to nothing: Stryker finds no mutant in it
// and leaves it out of its report, so it is named as such, not as a file not run yet.
const ts = createRequire(import.meta.url)('typescript');
const typesOnly = (file) =>
  ts
    .transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext },
    })
    .outputText.replace(/\/\/.*$/gm, '')
    .replace(/export \{\};?/, '')
    .trim() === '';
const coreOf = (name) => DECISION_CORE[name].map((file) => `src/${file}.ts`);

const chosen = (process.env['MUTATION_PACKAGES'] ?? PACKAGES.join(','))
  .split(',')
  .filter((name) => PACKAGES.includes(name));
const equivalent = JSON.parse(readFileSync(join(root, 'tools/mutation/equivalent.json'), 'utf8'));

const ledgerPath = join(root, 'tools/mutation/results.json');
const ledger = readLedger(ledgerPath);
/** Whether the ledger's entry for `path` of package `name` measured the file as it is now. */
const sameSource = (name, path, entry) =>
  existsSync(join(root, 'packages', name, path)) &&
  hashOf(readFileSync(join(root, 'packages', name, path), 'utf8')) === entry.sha256;

for (const name of process.env['MUTATION_REPORT_ONLY'] === '1' ? [] : chosen) {
  const cwd = join(root, 'packages', name);
  let env = process.env;
  if (process.env['MUTATION_RECHECK'] === '1') {
    const entries = Object.entries(ledger[name] ?? {}).filter(([path]) =>
      existsSync(join(cwd, path)),
    );
    const files = recheckSelection(name, entries, equivalent, (path, entry) =>
      sameSource(name, path, entry),
    );
    if (files.length === 0) continue;
    // Each recheck keeps its report (`recheck`, or MUTATION_TAG when it starts with `recheck`):
    // they apply in turn, and a later one runs only what the earlier ones left.
    const tag = process.env['MUTATION_TAG'] ?? '';
    env = {
      ...process.env,
      MUTATION_FILES: files.join(','),
      MUTATION_TAG: tag.startsWith('recheck') ? tag : 'recheck',
    };
  }
  console.log(`\n# Stryker: @keel/${name}`);
  const run = spawnSync('pnpm', ['exec', 'stryker', 'run', 'stryker.config.mjs'], {
    cwd,
    env,
    stdio: 'inherit',
  });
  if (run.status !== 0) console.error(`Stryker ended with ${run.status} for @keel/${name}`);
}

/**
 * Every report's mutants, per file. A file can be run in parts (`src/x.ts:1-150`, `src/x.ts:151-300`)
 * or again after a change: the newest report of a file gives its source, the reports of that same
 * source are folded mutant by mutant (the newest result wins), and reports of an older source are left
 * out. Returns [path, ledger entry] pairs, each file once (see ledger.mjs); the entry's `ranges` names
 * the lines run when only parts of the file were (read from the reports' names, which carry the
 * selection).
 */
function foldReports(reports) {
  const byPath = new Map();
  for (const report of reports) {
    const tag = report.slice(report.lastIndexOf('mutation-') + 'mutation-'.length, -'.json'.length);
    for (const [long, file] of Object.entries(JSON.parse(readFileSync(report, 'utf8')).files)) {
      const path = long.slice(long.indexOf('src/'));
      const seen = byPath.get(path);
      // Reports come oldest first: a newer source starts the file afresh.
      if (seen === undefined || seen.source !== file.source)
        byPath.set(path, { source: file.source, mutants: new Map(), ranges: [] });
      const folded = byPath.get(path);
      folded.measured = new Date(statSync(report).mtimeMs).toISOString().slice(0, 10);
      for (const m of file.mutants) folded.mutants.set(mutantKey(m), m);
      const range = rangeIn(tag, path);
      folded.ranges =
        range === undefined || folded.ranges === undefined ? undefined : [...folded.ranges, range];
    }
  }
  return [...byPath].map(([path, { mutants, ranges, source, measured }]) => [
    path,
    summarize({ mutants: [...mutants.values()], ranges, source, measured }),
  ]);
}
/** The lines of `path` a report's selection (`tag`, as stryker-options.mjs names it) ran, if a range. */
function rangeIn(tag, path) {
  const safe = path.replace(/[^\w+.-]/g, '_');
  for (const piece of tag.split('+')) {
    const match =
      piece.startsWith(`${safe}_`) && /^(\d+)-(\d+)$/.exec(piece.slice(safe.length + 1));
    if (match) return [Number(match[1]), Number(match[2])];
  }
  return undefined;
}
/** `src/x.ts`, or `src/x.ts` (lines 1–150, 200–260) for a file run only in parts. */
function fileLabel(path, ranges) {
  if (ranges === undefined) return `\`${path}\``;
  const merged = [...ranges].sort((a, b) => a[0] - b[0]).map(([a, b]) => `${a}–${b}`);
  return `\`${path}\` (lines ${[...new Set(merged)].join(', ')})`;
}
/** One mutant: its span, mutator and replacement. */
function mutantKey(m) {
  return `${span(m)}:${m.mutatorName}:${m.replacement ?? ''}`;
}

/** Stryker's score over ledger entries: killed (and timed out) of the mutants that ran or had no test. */
function score(entries) {
  const sum = (field) => entries.reduce((total, entry) => total + entry[field], 0);
  const killed = sum('killed');
  const valid = killed + sum('survived') + sum('uncovered');
  return {
    killed,
    survived: sum('survived'),
    uncovered: sum('uncovered'),
    invalid: sum('invalid'),
    score: valid === 0 ? undefined : (100 * killed) / valid,
  };
}
/** A Markdown code span for `text`, fenced by one backtick more than the longest run inside it. */
function code(text) {
  const fence = '`'.repeat(Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  return fence === '`' ? `\`${text}\`` : `${fence} ${text} ${fence}`;
}
const percent = (value) => (value === undefined ? '—' : `${value.toFixed(1)} %`);
const row = (label, s, measured) =>
  `| ${label} | ${percent(s.score)} | ${s.killed} | ${s.survived} | ${s.uncovered} | ${s.invalid} | ${measured} |`;

const lines = [
  '# Mutation testing',
  '',
  'Written by `pnpm mutation` (Stryker, incremental, `tools/mutation/run.mjs`); not part of CI.',
  'Score = killed (or timed out) ÷ (killed + survived + no coverage); type errors are not counted.',
  '',
];
for (const name of PACKAGES) {
  // Every selection's last report (MUTATION_FILES runs keep their own), the newest per file, over
  // what the ledger kept from earlier runs (on this machine or another).
  const dir = join(root, 'packages', name, 'node_modules/.cache/stryker');
  const reports = existsSync(dir)
    ? readdirSync(dir)
        .filter((file) => /^mutation.*\.json$/.test(file))
        .map((file) => join(dir, file))
        .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)
    : [];
  const kept = Object.entries(ledger[name] ?? {}).filter(([path]) =>
    existsSync(join(root, 'packages', name, path)),
  );
  const isRecheck = (report) => /[/\\]mutation-recheck[^/\\]*\.json$/.test(report);
  ledger[name] = Object.fromEntries([
    ...kept,
    ...foldReports(reports.filter((r) => !isRecheck(r))),
  ]);
  // A recheck applies onto the entry of the same source, unless a later report ran the file again.
  for (const report of reports.filter(isRecheck)) {
    const measured = new Date(statSync(report).mtimeMs).toISOString().slice(0, 10);
    const runAgain = new Set(
      reports
        .filter((r) => !isRecheck(r) && statSync(r).mtimeMs > statSync(report).mtimeMs)
        .flatMap((r) => Object.keys(JSON.parse(readFileSync(r, 'utf8')).files))
        .map((long) => long.slice(long.indexOf('src/'))),
    );
    for (const [long, file] of Object.entries(JSON.parse(readFileSync(report, 'utf8')).files)) {
      const path = long.slice(long.indexOf('src/'));
      if (runAgain.has(path)) continue;
      const base = ledger[name][path];
      ledger[name][path] =
        base !== undefined && base.sha256 === hashOf(file.source)
          ? applyRecheck(base, file.mutants, measured, file.source)
          : summarize({ mutants: file.mutants, ranges: undefined, source: file.source, measured });
    }
  }
  const byFile = Object.entries(ledger[name]);
  if (byFile.length === 0) {
    lines.push(`## @keel/${name}`, '', 'Not run yet.', '');
    continue;
  }
  // A file changed since its run: its row says so (its mutants moved; run it again).
  // An entry without a hash was carried over from a MUTATION.md written before the ledger.
  const carried = (entry) => entry.sha256 === null;
  const changed = (path, entry) => !carried(entry) && !sameSource(name, path, entry);
  const label = (path, entry) =>
    `${fileLabel(path, entry.ranges)}${changed(path, entry) ? ' (changed since)' : ''}${carried(entry) ? ' (carried over)' : ''}`;
  const all = byFile.map(([, entry]) => entry);
  lines.push(`## @keel/${name}`, '');
  lines.push('| files | score | killed | survived | no coverage | type errors | measured |');
  lines.push('| --- | ---: | ---: | ---: | ---: | ---: | --- |');
  // A recheck's day follows the day the file was run whole.
  const when = (entry) =>
    entry.rechecked === undefined || entry.rechecked === entry.measured
      ? entry.measured
      : `${entry.measured} (survivors ${entry.rechecked})`;
  const days = (entries) => [...new Set(entries.map((entry) => entry.measured))].sort().join(', ');
  lines.push(row(`all mutated (${byFile.length})`, score(all), days(all)));
  const core = byFile.filter(([path]) => coreOf(name).includes(path));
  if (core.length > 0) {
    const entries = core.map(([, entry]) => entry);
    lines.push(row('decision core', score(entries), days(entries)));
    for (const [path, entry] of core)
      lines.push(row(label(path, entry), score([entry]), when(entry)));
  }
  // Every other file run, one row each, so a file outside the core shows its own score too.
  for (const [path, entry] of byFile.filter(([path]) => !coreOf(name).includes(path)))
    lines.push(row(label(path, entry), score([entry]), when(entry)));
  const stale = byFile.filter(([path, entry]) => changed(path, entry)).map(([path]) => path);
  if (stale.length > 0)
    lines.push(
      '',
      `Changed since their run (their rows and survivors are the last run's: run them again): ${stale
        .map((p) => `\`${p}\``)
        .join(', ')}.`,
    );
  const old = byFile.filter(([, entry]) => carried(entry)).map(([path]) => path);
  if (old.length > 0)
    lines.push(
      '',
      `Carried over from MUTATION.md as it was before the ledger (their Stryker reports were lost with the machine that ran them; the source they mutated is unknown: run them again): ${old
        .map((p) => `\`${p}\``)
        .join(', ')}.`,
    );
  if (name === 'orchestrator') {
    lines.push(
      '',
      "The decision core's health rules are `@keel/provider-health`'s (this package's " +
        '`src/health-rules.ts` only re-exports them): see that package below.',
    );
  }
  const missing = coreOf(name).filter((path) => !byFile.some(([done]) => done === path));
  if (missing.length > 0)
    lines.push(
      '',
      `Decision-core files not run yet: ${missing.map((p) => `\`${p}\``).join(', ')}.`,
    );
  const partly = core.filter(([, entry]) => entry.ranges !== undefined);
  if (partly.length > 0)
    lines.push(
      '',
      `Decision-core files run only in part (the score counts those lines' mutants): ${partly
        .map(([path, entry]) => fileLabel(path, entry.ranges))
        .join(', ')}.`,
    );
  const excluded = name === 'orchestrator' ? ['src/turn-runtime.ts'] : [];
  const notRun = readdirSync(join(root, 'packages', name, 'src'))
    .filter((file) => file.endsWith('.ts') && !/\.test(-d)?\.ts$|^index\.ts$/.test(file))
    .map((file) => `src/${file}`)
    .filter((path) => !excluded.includes(path) && !missing.includes(path))
    .filter((path) => !byFile.some(([done]) => done === path));
  const types = notRun.filter((path) => typesOnly(join(root, 'packages', name, path)));
  const toRun = notRun.filter((path) => !types.includes(path));
  if (types.length > 0)
    lines.push('', `Types alone (no mutant to make): ${types.map((p) => `\`${p}\``).join(', ')}.`);
  if (toRun.length > 0)
    lines.push('', `Files not run yet: ${toRun.map((p) => `\`${p}\``).join(', ')}.`);
  const left = byFile.flatMap(([path, entry]) => entry.survivors.map((m) => ({ path, ...m })));
  lines.push('', `### Surviving mutants (${left.length})`, '');
  if (left.length === 0) lines.push('None.');
  for (const m of left) {
    const key = survivorKey(name, m.path, m);
    const reason = equivalent[key] ?? 'not killed yet';
    lines.push(
      `- \`${m.path}:${m.span}\` ${m.mutator} → ${code(m.replacement)} (${m.status}): ${reason}`,
    );
  }
  lines.push('');
}
writeLedger(ledgerPath, ledger);
// The issue's own survivors and their tests: kept by hand, appended as written.
lines.push(readFileSync(join(root, 'tools/mutation/issue-survivors.md'), 'utf8').trimEnd());
writeFileSync(join(root, 'MUTATION.md'), `${lines.join('\n')}\n`);
console.log('\nMUTATION.md written.');
