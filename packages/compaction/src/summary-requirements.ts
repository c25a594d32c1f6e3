import { collectIdentifiers } from './extract-identifiers';
import type { CompactionPlan } from './plan-compaction';
import { messageText } from './render-messages';
import type { SummaryValidation } from './validate-summary';
import { validateSummary } from './validate-summary';

/** Internal: what every summary of one plan must meet, and the check of it. */
export interface SummaryRequirements {
  budgetTokens: number;
  /** The newest identifiers of the compacted messages and the previous summary. */
  requiredIdentifiers: readonly string[];
  validate(summary: string): SummaryValidation;
}

/** Internal: the requirements for summarizing a plan's compacted range. */
export function summaryRequirements(
  plan: CompactionPlan,
  options: { budgetTokens: number; maxIdentifiers: number },
): SummaryRequirements {
  const texts = plan.compacted.map(messageText);
  if (plan.previousSummary !== undefined) texts.unshift(plan.previousSummary);
  const requiredIdentifiers = collectIdentifiers(texts, options.maxIdentifiers);
  const { budgetTokens } = options;
  return {
    budgetTokens,
    requiredIdentifiers,
    validate: (summary) => validateSummary(summary, { budgetTokens, requiredIdentifiers }),
  };
}
