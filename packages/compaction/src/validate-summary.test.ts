import { describe, expect, it } from 'vitest';
import { findMissingSections, SUMMARY_SECTIONS } from './summary-sections';
import { describeSummaryProblems, validateSummary } from './validate-summary';

const complete = SUMMARY_SECTIONS.map((name) => `## ${name}\n- item for ${name}`).join('\n\n');

describe('validateSummary', () => {
  it('accepts a summary with every section, within budget, keeping every identifier', () => {
    const summary = `${complete}\n- /work/app/src/main.ts`;
    expect(
      validateSummary(summary, {
        budgetTokens: 500,
        requiredIdentifiers: ['/work/app/src/main.ts'],
      }),
    ).toEqual({
      valid: true,
    });
  });

  it.each([[''], ['   \n\t '], [undefined], [42]])('rejects empty output %j', (summary) => {
    expect(validateSummary(summary, { budgetTokens: 500 })).toEqual({
      valid: false,
      problems: [{ type: 'empty' }],
    });
  });

  it('rejects a section-less summary and names the missing sections', () => {
    const result = validateSummary('The user wanted things and they were done.', {
      budgetTokens: 500,
    });
    expect(result).toEqual({
      valid: false,
      problems: [{ type: 'missing-sections', sections: [...SUMMARY_SECTIONS] }],
    });
  });

  it('rejects the classic placeholder summaries', () => {
    for (const placeholder of [
      'Error generating summary',
      'Summary unavailable.',
      '(no summary)',
    ]) {
      expect(validateSummary(placeholder, { budgetTokens: 500 }).valid).toBe(false);
    }
  });

  it('rejects a summary over budget', () => {
    const result = validateSummary(`${complete}\n${'x'.repeat(4000)}`, { budgetTokens: 200 });
    expect(result.valid).toBe(false);
    if (!result.valid) expect(result.problems.map((p) => p.type)).toEqual(['over-budget']);
  });

  it('rejects a summary that lost an exact identifier', () => {
    const result = validateSummary(complete, {
      budgetTokens: 500,
      requiredIdentifiers: ['https://example.com/issue/7', 'toolu_01XYZ'],
    });
    expect(result).toEqual({
      valid: false,
      problems: [
        {
          type: 'missing-identifiers',
          identifiers: ['https://example.com/issue/7', 'toolu_01XYZ'],
        },
      ],
    });
    if (!result.valid) expect(describeSummaryProblems(result.problems)).toContain('toolu_01XYZ');
  });
});

describe('findMissingSections', () => {
  it('accepts headings of any level with an optional colon, case-insensitively', () => {
    const summary =
      '# goal\n### Constraints:\n## DECISIONS\n## Progress\n#### Open items\n## Exact identifiers';
    expect(findMissingSections(summary)).toEqual([]);
  });

  it('does not accept a section name in running text', () => {
    expect(findMissingSections('Goal: ship it. Progress is good.')).toContain('Goal');
  });
});
