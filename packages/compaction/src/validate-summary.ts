import { estimateTextTokens } from './estimate-tokens';
import { findMissingSections, SUMMARY_SECTIONS } from './summary-sections';

export type SummaryProblem =
  | { type: 'empty' }
  /**
   * The producer's model stopped at its token limit (`finish: length`), so the text is cut
   * short however complete it looks. Reported by the compactor: the text alone cannot show it.
   */
  | { type: 'cut-off' }
  | { type: 'over-budget'; tokens: number; budgetTokens: number }
  | { type: 'missing-sections'; sections: string[] }
  | { type: 'missing-identifiers'; identifiers: string[] };

export interface ValidateSummaryOptions {
  /** Largest allowed summary, in estimated tokens. */
  budgetTokens: number;
  /** Identifiers from the compacted range that must appear verbatim. */
  requiredIdentifiers?: readonly string[];
  /** Default `SUMMARY_SECTIONS`. */
  requiredSections?: readonly string[];
}

export type SummaryValidation = { valid: true } | { valid: false; problems: SummaryProblem[] };

/**
 * The one validation every producer's output passes: a non-empty string, within the token
 * budget, with every required section heading and every required identifier verbatim.
 */
export function validateSummary(
  summary: unknown,
  options: ValidateSummaryOptions,
): SummaryValidation {
  if (typeof summary !== 'string' || summary.trim().length === 0) {
    return { valid: false, problems: [{ type: 'empty' }] };
  }
  const problems: SummaryProblem[] = [];
  const tokens = estimateTextTokens(summary);
  if (tokens > options.budgetTokens) {
    problems.push({ type: 'over-budget', tokens, budgetTokens: options.budgetTokens });
  }
  const sections = findMissingSections(summary, options.requiredSections ?? SUMMARY_SECTIONS);
  if (sections.length > 0) problems.push({ type: 'missing-sections', sections });
  const identifiers = (options.requiredIdentifiers ?? []).filter((id) => !summary.includes(id));
  if (identifiers.length > 0) problems.push({ type: 'missing-identifiers', identifiers });
  return problems.length === 0 ? { valid: true } : { valid: false, problems };
}

/** One line per problem, for corrective instructions and attempt reasons. */
export function describeSummaryProblems(problems: readonly SummaryProblem[]): string {
  return problems
    .map((problem) => {
      switch (problem.type) {
        case 'empty':
          return 'the summary is empty';
        case 'cut-off':
          return 'the summary was cut off at the token limit';
        case 'over-budget':
          return `the summary is ${problem.tokens} tokens, over the budget of ${problem.budgetTokens}`;
        case 'missing-sections':
          return `missing sections: ${problem.sections.join(', ')}`;
        case 'missing-identifiers':
          return `missing exact identifiers: ${problem.identifiers.join(', ')}`;
        default: {
          const unreachable: never = problem;
          return unreachable;
        }
      }
    })
    .join('; ');
}
