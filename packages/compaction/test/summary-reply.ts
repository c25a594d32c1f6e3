import type { RecordedRequest } from '@keel/testing';
import { lastUserText } from '@keel/testing';
import { SUMMARY_SECTIONS } from '../src/summary-sections';

const IDENTIFIER_LINE = 'Copy each of these identifiers verbatim into the summary: ';

/**
 * The loopback model's deterministic "summarizer": a summary with every required section that
 * copies the identifiers the prompt lists, as an obedient model would.
 */
export function structuredSummaryReply(request: Pick<RecordedRequest, 'messages'>): string {
  const prompt = lastUserText(request);
  const line = prompt.split('\n').find((candidate) => candidate.startsWith(IDENTIFIER_LINE));
  return summaryKeeping(line === undefined ? [] : line.slice(IDENTIFIER_LINE.length).split(' '));
}

/** A summary with every required section that lists `identifiers` verbatim. */
export function summaryKeeping(identifiers: readonly string[]): string {
  return SUMMARY_SECTIONS.map((section) => {
    const body =
      section === 'Exact identifiers' ? identifiers.map((id) => `- ${id}`).join('\n') : '- noted';
    return `## ${section}\n${body || '- none'}`;
  }).join('\n\n');
}
