import type { BenchResult, Table } from './result';

export function renderTable(table: Table): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(table.columns),
    line(table.columns.map(() => '---')),
    ...table.rows.map((row) => line(row)),
  ].join('\n');
}

/** One section of `BENCHMARKS.md`. */
export function renderResult(result: BenchResult, smoke = false): string {
  const parts = [`## ${result.title}`, ''];
  if (smoke) parts.push('_Smoke run: tiny sizes, figures not meaningful._', '');
  parts.push(result.method, '', `Baseline: ${result.baseline}`, '');
  for (const { caption, table } of result.tables) {
    if (caption !== undefined) parts.push(`${caption}`, '');
    parts.push(renderTable(table), '');
  }
  if (result.targets.length > 0) {
    parts.push(
      renderTable({
        columns: ['target', 'goal', 'measured', 'result'],
        rows: result.targets.map((target) => [
          target.name,
          target.goal,
          target.measured,
          target.met
            ? '**met**'
            : `**not met**${target.why === undefined ? '' : ` — ${target.why}`}`,
        ]),
      }),
      '',
    );
  }
  for (const note of result.notes) parts.push(note, '');
  return parts.join('\n');
}
