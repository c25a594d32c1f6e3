/**
 * Puts the rows of a partial run (`pnpm bench failover --write`) into an existing
 * `BENCHMARKS.md` without measuring every other row again: each row's section is replaced (or
 * added before "Where the time goes") and marked with when it was measured, and its lines in the
 * targets table are replaced. Rows a long run measures alone (the failover scorecard takes
 * minutes) land in the document the same way as from a full run. The closing section ("Where the
 * time goes", written by hand in `where-the-time-goes.ts`) is replaced by `tail` when one is given.
 */
import { renderResult, renderTable } from './markdown';
import type { BenchResult } from './result';

const TAIL_HEADING = '## Where the time goes';

export function mergeResults(
  document: string,
  results: readonly BenchResult[],
  measured: string,
  tail?: string,
): string {
  let text = document;
  for (const result of results) {
    text = replaceSection(text, result, measured);
    text = replaceTargets(text, result);
  }
  if (tail === undefined) return text;
  const from = text.indexOf(TAIL_HEADING);
  return `${from === -1 ? `${text.trimEnd()}\n\n` : text.slice(0, from)}${tail.trimEnd()}\n`;
}

function replaceSection(text: string, result: BenchResult, measured: string): string {
  const heading = `## ${result.title}\n`;
  const [first, ...rest] = renderResult(result).split('\n');
  // A section ends with a blank line, as in a full run's document.
  const section = `${[first, '', `_${measured}_`, ...rest].join('\n')}\n`;
  const from = text.indexOf(heading);
  if (from !== -1) {
    const next = text.indexOf('\n## ', from + heading.length);
    const to = next === -1 ? text.length : next + 1;
    return `${text.slice(0, from)}${section}${text.slice(to)}`;
  }
  const tail = text.indexOf(TAIL_HEADING);
  if (tail === -1) return `${text.trimEnd()}\n\n${section}`;
  return `${text.slice(0, tail)}${section}${text.slice(tail)}`;
}

/**
 * The row's lines of the targets table (`| title | … |`), replaced where its first line stood (the
 * other rows keep their order), or appended to the table for a row it did not have.
 */
function replaceTargets(text: string, result: BenchResult): string {
  const lines = text.split('\n');
  const header = lines.indexOf('| row | target | goal | measured | result |');
  if (header === -1) return text;
  let end = header + 2;
  while (lines[end]?.startsWith('|')) end += 1;
  const rows = lines.slice(header + 2, end);
  const own = (line: string) => line.startsWith(`| ${result.title} |`);
  const at = rows.findIndex(own);
  const place = at === -1 ? rows.length : at;
  const added = renderTable({
    columns: ['row', 'target', 'goal', 'measured', 'result'],
    rows: result.targets.map((target) => [
      result.title,
      target.name,
      target.goal,
      target.measured,
      target.met ? 'met' : 'not met',
    ]),
  })
    .split('\n')
    .slice(2);
  const before = rows.slice(0, place);
  const after = rows.slice(place).filter((line) => !own(line));
  return [...lines.slice(0, header + 2), ...before, ...added, ...after, ...lines.slice(end)].join(
    '\n',
  );
}
