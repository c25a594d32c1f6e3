/** The sections every summary carries, in this order, each as a Markdown heading (`## Goal`). */
export const SUMMARY_SECTIONS = [
  'Goal',
  'Constraints',
  'Decisions',
  'Progress',
  'Open items',
  'Exact identifiers',
] as const;

export type SummarySection = (typeof SUMMARY_SECTIONS)[number];

function escapeForPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Sections whose heading (`#`…`######` then the name, optional colon) is missing from a summary. */
export function findMissingSections(
  summary: string,
  sections: readonly string[] = SUMMARY_SECTIONS,
): string[] {
  return sections.filter(
    (section) =>
      !new RegExp(`^#{1,6}[ \\t]*${escapeForPattern(section)}[ \\t]*:?[ \\t]*$`, 'im').test(
        summary,
      ),
  );
}
