// Re-running a file's survivors (`MUTATION_RECHECK=1 pnpm mutation`): a survivor killed by a test
// written later counts only once Stryker has run it again, and a whole run of the orchestrator takes
// hours on two cores. A recheck mutates only the lines of each survivor not already explained as
// equivalent (every mutant on those lines, so a regression there shows too), in files whose source
// is still the one the ledger measured, and the whole of each file changed since. Its report
// (tag `recheck…`) is then applied to the ledger entry mutant by mutant instead of replacing it.
import { survivorKey, survivorOf } from './ledger.mjs';

/**
 * MUTATION_FILES for a recheck of package `name`: `src/x.ts:a-b` for the lines of each survivor of
 * an unchanged file whose reason is not "equivalent…", and `src/x.ts` for each file changed since.
 * `unchanged(path, entry)` says whether the file's source is still the one measured.
 */
export function recheckSelection(name, entries, equivalent, unchanged) {
  const selection = [];
  for (const [path, entry] of entries) {
    if (!unchanged(path, entry)) {
      selection.push(path);
      continue;
    }
    const lines = entry.survivors
      .filter((m) => !(equivalent[survivorKey(name, path, m)] ?? '').startsWith('equivalent'))
      .map((m) => m.span.split('-').map((end) => Number(end.split(':')[0])))
      .sort((a, b) => a[0] - b[0]);
    const merged = [];
    for (const [from, to] of lines) {
      const last = merged.at(-1);
      if (last !== undefined && from <= last[1] + 1) last[1] = Math.max(last[1], to);
      else merged.push([from, to]);
    }
    for (const [from, to] of merged) selection.push(`${path}:${from}-${to}`);
  }
  return selection;
}

const SURVIVING = ['Survived', 'NoCoverage'];
const COUNTED = ['Killed', 'Timeout', ...SURVIVING];
const field = (status) =>
  status === 'Survived' ? 'survived' : status === 'NoCoverage' ? 'uncovered' : 'killed';

/**
 * `entry` (a ledger entry of the same source) with a recheck's `mutants` applied: a survivor now
 * killed moves to `killed`, a mutant that was killed and now survives moves back (a regression), a
 * survivor's status is updated. Mutants the checker refused stay as they were (the same source gives
 * the same type errors). Applying the same recheck again changes nothing. `source` is the text the
 * recheck mutated (the entry's own, as its hash says).
 */
export function applyRecheck(entry, mutants, measured, source) {
  const next = { ...entry, survivors: [...entry.survivors] };
  const at = (m) => {
    const { span, mutator, replacement } = survivorOf(m, source);
    return next.survivors.findIndex(
      (s) => s.span === span && s.mutator === mutator && s.replacement === replacement,
    );
  };
  for (const m of mutants.filter((mutant) => COUNTED.includes(mutant.status))) {
    const index = at(m);
    const before = index === -1 ? 'Killed' : next.survivors[index].status;
    if (field(before) === field(m.status)) continue;
    next[field(before)] -= 1;
    next[field(m.status)] += 1;
    if (!SURVIVING.includes(m.status)) next.survivors.splice(index, 1);
    else if (index !== -1) next.survivors[index] = { ...next.survivors[index], status: m.status };
    else next.survivors.push(survivorOf(m, source));
  }
  return { ...next, rechecked: measured };
}
