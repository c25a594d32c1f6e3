// The mutation ledger (tools/mutation/results.json, in git): per package and file, what the last
// Stryker run of that file found — its counts, its survivors, the hash of the source it mutated
// and the day. Stryker's own reports live in node_modules/.cache (not in git, lost with the
// machine); the ledger keeps each file's last result, so MUTATION.md can be written again anywhere,
// and says which files changed since they were measured.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Where a mutant is: `line:column-endLine:endColumn`. Two mutants can share a line, and even a start
 * (`a && b` → false, and `a` → false), so the span tells them apart.
 */
export function span(m) {
  const { start, end } = m.location;
  return `${start.line}:${start.column}-${end.line}:${end.column}`;
}

/**
 * A surviving Stryker mutant as the ledger keeps it. Its replacement is kept on one line; one longer
 * than 80 characters (a long regex with one part changed) is kept as the part that differs from the
 * `source` it mutated, with 20 characters each side, so that two mutants of one literal are told
 * apart in MUTATION.md and in their keys.
 */
export const survivorOf = (m, source) => ({
  span: span(m),
  mutator: m.mutatorName,
  replacement: shownReplacement(m, source),
  status: m.status,
});

const SHOWN = 80;
const SIDE = 20;

function shownReplacement(m, source) {
  const mutated = (m.replacement ?? '').replace(/\s+/g, ' ');
  if (mutated.length <= SHOWN) return mutated;
  const original = textAt(source, m.location).replace(/\s+/g, ' ');
  let from = 0;
  while (from < mutated.length && mutated[from] === original[from]) from += 1;
  let back = 0;
  const room = Math.min(mutated.length, original.length) - from;
  while (back < room && mutated.at(-1 - back) === original.at(-1 - back)) back += 1;
  const start = Math.max(0, from - SIDE);
  const end = Math.min(mutated.length, mutated.length - back + SIDE);
  return `${start > 0 ? '…' : ''}${mutated.slice(start, end)}${end < mutated.length ? '…' : ''}`;
}

/** The text of `source` at a Stryker location (lines and columns from 1, the end excluded). */
export function textAt(source, { start, end }) {
  const lines = source.split('\n');
  const offset = ({ line, column }) =>
    lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0) + column - 1;
  return source.slice(offset(start), offset(end));
}

/** A ledger survivor's key in tools/mutation/equivalent.json, as MUTATION.md prints it. */
export const survivorKey = (name, path, survivor) =>
  `${name}/${path}:${survivor.span}:${survivor.mutator}:${survivor.replacement}`;

/** sha256 of a file's text, as the ledger keeps it. */
export const hashOf = (text) => createHash('sha256').update(text).digest('hex');

/**
 * One file's entry from its folded Stryker mutants: `source` is the text Stryker mutated,
 * `measured` the report's date (YYYY-MM-DD), `ranges` the lines run when only parts were.
 */
export function summarize({ mutants, ranges, source, measured }) {
  const count = (...statuses) => mutants.filter((m) => statuses.includes(m.status)).length;
  const survivors = mutants
    .filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')
    .map((m) => survivorOf(m, source))
    .sort((a, b) => compareSpans(a.span, b.span));
  return {
    sha256: hashOf(source),
    measured,
    ...(ranges === undefined ? {} : { ranges }),
    killed: count('Killed', 'Timeout'),
    survived: count('Survived'),
    uncovered: count('NoCoverage'),
    invalid: count('CompileError', 'RuntimeError'),
    survivors,
  };
}

function compareSpans(a, b) {
  const [la, ca] = a.split(/[:-]/).map(Number);
  const [lb, cb] = b.split(/[:-]/).map(Number);
  return la - lb || ca - cb;
}

/** The ledger at `path` (`{}` when there is none yet). */
export function readLedger(path) {
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
}

/** Writes the ledger with its packages and files in a stable order (small diffs). */
export function writeLedger(path, ledger) {
  const sorted = Object.fromEntries(
    Object.keys(ledger)
      .sort()
      .map((name) => [
        name,
        Object.fromEntries(
          Object.keys(ledger[name])
            .sort()
            .map((file) => [file, ledger[name][file]]),
        ),
      ]),
  );
  writeFileSync(path, `${JSON.stringify(sorted, null, 2)}\n`);
}
