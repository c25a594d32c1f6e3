import { estimateTextTokens, SUMMARY_SECTIONS } from '@keel/compaction';
import type { ExtractedSections } from './extract-sections';

type SectionName = (typeof SUMMARY_SECTIONS)[number];

/** Bullets of each section of a previous summary (`## Name` headings, `- ` lines). */
export function parseSummary(summary: string | undefined): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  if (summary === undefined) return sections;
  let current: string[] | undefined;
  for (const line of summary.split('\n')) {
    const heading = /^#{1,6}\s*(.+?)\s*:?\s*$/.exec(line);
    if (heading?.[1] !== undefined) {
      current = [];
      sections.set(heading[1].toLowerCase(), current);
    } else if (current !== undefined && line.trim().length > 0) {
      current.push(line.replace(/^\s*[-*]\s*/, '').trim());
    }
  }
  return sections;
}

function render(bullets: ReadonlyMap<SectionName, string[]>): string {
  return SUMMARY_SECTIONS.map((name) => {
    const lines = bullets.get(name) ?? [];
    return `## ${name}\n${lines.length === 0 ? '- none' : lines.map((line) => `- ${line}`).join('\n')}`;
  }).join('\n\n');
}

export interface RenderSummaryOptions {
  previousSummary: string | undefined;
  requiredIdentifiers: readonly string[];
  budgetTokens: number;
  /** Most bullets per section before trimming for the budget; default 12. */
  maxBullets?: number;
}

/**
 * Merges the previous summary's bullets with the new ones, section by section, and trims the
 * oldest bullets of the longest prose section until the text fits `budgetTokens` (as the
 * compactor estimates tokens).
 * Identifiers (the required ones, then those of the previous summary) are trimmed last, and
 * required ones never: a text that still does not fit is returned as it is, for the provider
 * to refuse.
 */
export function renderSummary(extracted: ExtractedSections, options: RenderSummaryOptions): string {
  const previous = parseSummary(options.previousSummary);
  const maxBullets = options.maxBullets ?? 12;
  const merge = (name: SectionName, fresh: readonly string[], keepNewest = true): string[] => {
    const all = [
      ...(previous.get(name.toLowerCase()) ?? []).filter((line) => line !== 'none'),
      ...fresh,
    ];
    const unique = [...new Set(all)];
    return keepNewest ? unique.slice(-maxBullets) : unique.slice(0, maxBullets);
  };
  const required = new Set(options.requiredIdentifiers);
  const optionalIds = merge('Exact identifiers', []).filter((id) => !required.has(id));
  const bullets = new Map<SectionName, string[]>([
    ['Goal', merge('Goal', extracted.goal, false).slice(0, 2)],
    ['Constraints', merge('Constraints', extracted.constraints)],
    ['Decisions', merge('Decisions', extracted.decisions)],
    ['Progress', merge('Progress', extracted.progress)],
    ['Open items', extracted.openItems.slice(-maxBullets)],
    ['Exact identifiers', [...required, ...optionalIds]],
  ]);
  const fits = (candidate: string): boolean =>
    estimateTextTokens(candidate) <= options.budgetTokens;
  let text = render(bullets);
  const trimmable: SectionName[] = ['Progress', 'Decisions', 'Constraints', 'Open items', 'Goal'];
  while (!fits(text)) {
    const longest = trimmable
      .map((name) => [name, bullets.get(name) ?? []] as const)
      .filter(([, lines]) => lines.length > 0)
      .sort((left, right) => right[1].join('').length - left[1].join('').length)[0];
    const ids = bullets.get('Exact identifiers') ?? [];
    if (longest !== undefined) longest[1].shift();
    else if (ids.length > required.size) ids.pop();
    else break;
    text = render(bullets);
  }
  return text;
}
