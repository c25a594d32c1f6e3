import { SUMMARY_SECTIONS } from './summary-sections';

export interface SummaryInstructionsOptions {
  budgetTokens: number;
  requiredIdentifiers: readonly string[];
  requiredSections?: readonly string[];
  /** Extra instructions from the caller (e.g. "focus on the database migration"). */
  focus?: string;
  /** Why the previous try was rejected; asks for a corrected summary. */
  correction?: string;
}

/** The instructions every producer receives: sections, budget, identifiers, focus, correction. */
export function buildSummaryInstructions(options: SummaryInstructionsOptions): string {
  const sections = options.requiredSections ?? SUMMARY_SECTIONS;
  const lines = [
    'Summarize the conversation so that work can continue from the summary alone.',
    `Use exactly these Markdown headings, in this order: ${sections.map((name) => `"## ${name}"`).join(', ')}.`,
    'Goal: what the user wants. Constraints: requirements and preferences to respect. Decisions: what was decided and why. Progress: what is done. Open items: what remains, including the latest request. Exact identifiers: paths, ids, URLs and names, verbatim.',
    `Stay under ${options.budgetTokens} tokens (about ${options.budgetTokens * 4} characters of English, or ${options.budgetTokens} of Chinese, Japanese or Korean). Write no preamble.`,
  ];
  if (options.requiredIdentifiers.length > 0) {
    lines.push(
      `Copy each of these identifiers verbatim into the summary: ${options.requiredIdentifiers.join(' ')}`,
    );
  }
  if (options.focus !== undefined && options.focus.trim().length > 0) {
    lines.push(`Focus: ${options.focus.trim()}`);
  }
  if (options.correction !== undefined) {
    lines.push(`Your previous summary was rejected (${options.correction}). Fix that.`);
  }
  return lines.join('\n');
}
