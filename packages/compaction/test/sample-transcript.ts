import type { ContentBlock, MessageEntry, TranscriptEntry } from '@keel/spec';
import { messageEntry } from './message-entry';

let counter = 0;

function message(role: MessageEntry['role'], content: ContentBlock[]): MessageEntry {
  counter += 1;
  return messageEntry(`m-${counter}`, role, content);
}

/**
 * A small coding session, about 1 300 estimated tokens: a request with a path and a URL, two
 * tool exchanges (one result carries a commit id), then a follow-up request.
 * `filler` repeats plain words to make it longer.
 */
export function sampleTranscript(filler = 4000): TranscriptEntry[] {
  return [
    message('user', [
      {
        type: 'text',
        text: 'Please fix the failing test in /work/app/src/parser.ts, see https://github.com/acme/app/issues/42 for the report.',
      },
    ]),
    message('assistant', [
      { type: 'text', text: 'Reading the parser first.' },
      {
        type: 'tool_use',
        id: 'toolu_01A',
        name: 'read_file',
        input: { path: '/work/app/src/parser.ts' },
      },
    ]),
    message('tool', [
      {
        type: 'tool_result',
        toolUseId: 'toolu_01A',
        content: 'const line = 1; '.repeat(filler / 16),
      },
    ]),
    message('assistant', [
      {
        type: 'text',
        text: 'The header parser drops the last byte; switching to a streaming reader.',
      },
      {
        type: 'tool_use',
        id: 'toolu_01B',
        name: 'commit',
        input: { message: 'fix header parsing' },
      },
    ]),
    message('tool', [
      { type: 'tool_result', toolUseId: 'toolu_01B', content: 'committed 3f2a9c1d on main' },
    ]),
    message('assistant', [{ type: 'text', text: 'Fixed and committed.' }]),
    message('user', [
      { type: 'text', text: 'Thanks. Now also update the docs in docs/parser.md please.' },
    ]),
    message('assistant', [{ type: 'text', text: 'Working on the docs.' }]),
  ];
}

/** The identifiers in the part of `sampleTranscript()` a small-window compactor compacts. */
export const SAMPLE_IDENTIFIERS = [
  '/work/app/src/parser.ts',
  'https://github.com/acme/app/issues/42',
  '3f2a9c1d',
];

/** Budget options under which `sampleTranscript()` is over the threshold. */
export const SMALL_WINDOW = {
  contextWindowTokens: 1000,
  reserveTokens: 200,
  keepRecentTokens: 20,
  summaryMaxTokens: 400,
  chunkMaxTokens: 4000,
};
