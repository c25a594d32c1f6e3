import type {
  CompactionProvider,
  CompactionProviderRequest,
  ContentBlock,
  MessageEntry,
  Role,
} from '@keel/spec';

/** The headings `@keel/compaction` requires, in order. */
export const CONFORMANCE_SECTIONS = [
  'Goal',
  'Constraints',
  'Decisions',
  'Progress',
  'Open items',
  'Exact identifiers',
] as const;

let counter = 0;

function entry(role: Role, content: ContentBlock[]): MessageEntry {
  counter += 1;
  const id = `conf-${counter}`;
  return {
    type: 'message',
    id,
    messageId: id,
    timestamp: '2026-01-01T00:00:00.000Z',
    role,
    content,
  };
}

/** A short real conversation: a request with a path and a URL, an answer, a follow-up. */
export function conversationEntries(): MessageEntry[] {
  return [
    entry('user', [
      {
        type: 'text',
        text: 'Our deploy to https://status.example.com/deploys/118 failed. The config is /srv/app/config.yaml; do not touch the database.',
      },
    ]),
    entry('assistant', [
      {
        type: 'text',
        text: 'I decided to roll back first, then look at the health check timeout.',
      },
    ]),
    entry('user', [
      { type: 'text', text: 'Rollback done. Next, raise the timeout to 30 seconds.' },
    ]),
    entry('assistant', [{ type: 'text', text: 'Raised it; a redeploy is still pending.' }]),
  ];
}

/** A conversation with tool_use / tool_result pairs, one answered by an error. */
export function toolPairEntries(): MessageEntry[] {
  return [
    entry('user', [{ type: 'text', text: 'Find why the build fails in /work/web/package.json.' }]),
    entry('assistant', [
      { type: 'text', text: 'Reading the manifest.' },
      {
        type: 'tool_use',
        id: 'toolu_conf_1',
        name: 'read_file',
        input: { path: '/work/web/package.json' },
      },
      { type: 'tool_use', id: 'toolu_conf_2', name: 'run', input: { command: 'pnpm build' } },
    ]),
    entry('tool', [
      {
        type: 'tool_result',
        toolUseId: 'toolu_conf_1',
        content: '{ "name": "web", "version": "1.0.0" }',
      },
      {
        type: 'tool_result',
        toolUseId: 'toolu_conf_2',
        content: 'exit 1: cannot find module ./src/main.ts',
        isError: true,
      },
    ]),
    entry('assistant', [{ type: 'text', text: 'The entry file ./src/main.ts is missing.' }]),
  ];
}

/** About `tokens` estimated tokens of conversation (characters / 4). */
export function largeEntries(tokens: number): MessageEntry[] {
  const entries: MessageEntry[] = [];
  const paragraph = 'We went through the migration plan step by step and checked every table. ';
  const perEntryChars = 4000;
  const count = Math.max(2, Math.ceil((tokens * 4) / perEntryChars));
  for (let index = 0; index < count; index += 1) {
    const text = paragraph
      .repeat(Math.ceil(perEntryChars / paragraph.length))
      .slice(0, perEntryChars);
    entries.push(entry(index % 2 === 0 ? 'user' : 'assistant', [{ type: 'text', text }]));
  }
  return entries;
}

/** Identifiers a compactor would require for the fixtures above. */
export const CONVERSATION_IDENTIFIERS = [
  'https://status.example.com/deploys/118',
  '/srv/app/config.yaml',
];
export const TOOL_PAIR_IDENTIFIERS = ['/work/web/package.json', './src/main.ts'];

/** A request as `@keel/compaction` would build it. */
export function conformanceRequest(
  entries: readonly MessageEntry[],
  options: {
    signal: AbortSignal;
    budgetTokens: number;
    requiredIdentifiers?: readonly string[];
    previousSummary?: string;
  },
): CompactionProviderRequest {
  const requiredIdentifiers = options.requiredIdentifiers ?? [];
  return {
    entries,
    previousSummary: options.previousSummary,
    instructions: [
      'Summarize the conversation so that work can continue from the summary alone.',
      `Use exactly these Markdown headings, in this order: ${CONFORMANCE_SECTIONS.map((s) => `"## ${s}"`).join(', ')}.`,
      `Stay under ${options.budgetTokens} tokens.`,
      requiredIdentifiers.length > 0
        ? `Copy each of these identifiers verbatim into the summary: ${requiredIdentifiers.join(' ')}`
        : '',
    ]
      .filter((line) => line.length > 0)
      .join('\n'),
    signal: options.signal,
    budgetTokens: options.budgetTokens,
    requiredSections: CONFORMANCE_SECTIONS,
    requiredIdentifiers,
  };
}

/**
 * The smallest provider that meets the contract: headings, identifiers, abort, budget. Used by the
 * kit's own tests (not exported from `@keel/testing/vitest`).
 */
export function referenceProvider(): CompactionProvider {
  return {
    specificationVersion: 'v1',
    id: 'reference',
    async summarize(request) {
      request.signal.throwIfAborted();
      await new Promise((resolve) => setImmediate(resolve));
      request.signal.throwIfAborted();
      const lines = CONFORMANCE_SECTIONS.map((section) =>
        section === 'Exact identifiers'
          ? `## ${section}\n${request.requiredIdentifiers.map((id) => `- ${id}`).join('\n')}`
          : `## ${section}\n- ${request.entries.length} messages`,
      );
      return { summary: lines.join('\n') };
    },
  };
}
