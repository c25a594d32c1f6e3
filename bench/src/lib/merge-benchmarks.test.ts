// A row measured alone replaces its own section and targets in BENCHMARKS.md and nothing else.
import { describe, expect, it } from 'vitest';
import { mergeResults } from './merge-benchmarks';
import type { BenchResult } from './result';

const document = [
  '# Keel benchmarks',
  '',
  '## Targets',
  '',
  '| row | target | goal | measured | result |',
  '| --- | --- | --- | --- | --- |',
  '| 1. Overhead | p50 | < 1 ms | 5 ms | not met |',
  '| Issue 18: failover | passed | 16/16 | 3/16 | not met |',
  '',
  '## 1. Overhead',
  '',
  'old overhead text',
  '',
  '## Issue 18: failover',
  '',
  'old failover text',
  '',
  '## Where the time goes',
  '',
  'tail',
  '',
].join('\n');

const result = (title: string): BenchResult => ({
  order: 18,
  title,
  method: 'new method',
  baseline: 'the rules',
  tables: [],
  targets: [{ name: 'passed', goal: '16/16', measured: '12/16', met: false }],
  notes: [],
});

describe('mergeResults', () => {
  it('replaces the row section and its target lines, leaving the others alone', () => {
    const merged = mergeResults(document, [result('Issue 18: failover')], 'measured alone today');
    expect(merged).not.toContain('old failover text');
    expect(merged).toContain('old overhead text');
    expect(merged).toContain('## Issue 18: failover\n\n_measured alone today_\n\nnew method');
    expect(merged).toContain('| 1. Overhead | p50 | < 1 ms | 5 ms | not met |');
    expect(merged).toContain('| Issue 18: failover | passed | 16/16 | 12/16 | not met |');
    expect(merged).not.toContain('3/16');
    expect(merged).toContain('| 16/16 | 12/16 | **not met** |\n\n## Where the time goes');
  });

  it("replaces a row that is not the table's last where it stood: the other rows keep their order", () => {
    const table = (text: string) =>
      text
        .slice(text.indexOf('| row |'), text.indexOf('## 1. Overhead'))
        .trim()
        .split('\n')
        .slice(2)
        .map((line) => line.split(' | ')[0]);
    const merged = mergeResults(document, [result('1. Overhead')], 'alone');
    expect(merged).toContain('| 1. Overhead | passed | 16/16 | 12/16 | not met |');
    expect(merged).not.toContain('| 1. Overhead | p50 |');
    expect(table(merged)).toEqual(table(document));
  });

  it('replaces the closing section when given one, and keeps it otherwise', () => {
    const tail = '## Where the time goes\n\nnew tail\n';
    const merged = mergeResults(document, [result('Issue 18: failover')], 'alone', tail);
    expect(merged.endsWith('not met** |\n\n## Where the time goes\n\nnew tail\n')).toBe(true);
    expect(merged).not.toContain('\ntail\n');
    expect(mergeResults(document, [], 'alone')).toBe(document);
    const none = document.slice(0, document.indexOf('## Where the time goes'));
    expect(mergeResults(none, [], 'alone', tail)).toBe(`${none.trimEnd()}\n\n${tail}`);
  });

  it('adds a new row before "Where the time goes" and its targets at the end of the table', () => {
    const merged = mergeResults(document, [result('Issue 19: new')], 'alone');
    expect(merged.indexOf('## Issue 19: new')).toBeGreaterThan(merged.indexOf('old failover text'));
    expect(merged.indexOf('## Issue 19: new')).toBeLessThan(
      merged.indexOf('## Where the time goes'),
    );
    const table = merged.slice(merged.indexOf('| row |'), merged.indexOf('## 1. Overhead'));
    expect(table.trim().split('\n').at(-1)).toBe(
      '| Issue 19: new | passed | 16/16 | 12/16 | not met |',
    );
  });
});
