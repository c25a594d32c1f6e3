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

/** A surviving Stryker mutant as the ledger keeps it (the replacement on one line, 80 characters). */
export const survivorOf = (m) => ({
  span: span(m),
  mutator: m.mutatorName,
  replacement: (m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 80),
  status: m.status,
});

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
    .map(survivorOf)
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
