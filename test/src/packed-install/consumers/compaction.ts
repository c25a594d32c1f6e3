// @keel/compaction alone: a third-party provider (no model needed) summarizes a transcript held in
// memory; the summary is validated and committed as one compaction entry.
import {
  type CompactionProvider,
  type CompactionStore,
  createCompactionRegistry,
  createCompactor,
  type MessageEntry,
  SUMMARY_SECTIONS,
  type TranscriptEntry,
} from '@keel/compaction';

const say = (id: string, role: 'user' | 'assistant', text: string): MessageEntry => ({
  type: 'message',
  id,
  messageId: id,
  timestamp: new Date(0).toISOString(),
  role,
  content: [{ type: 'text', text }],
});

export async function consume(): Promise<unknown> {
  const transcript: TranscriptEntry[] = [
    say('m1', 'user', `Fix /srv/app/parser.ts. ${'Details. '.repeat(400)}`),
    say('m2', 'assistant', 'Fixed it in commit 3f2a9c1d.'),
    say('m3', 'user', 'Now update the docs.'),
  ];
  const store: CompactionStore = {
    read: async () => ({ entries: transcript }),
    append: async (_sessionId, entries) => {
      transcript.push(...entries);
    },
  };
  const bullets: CompactionProvider = {
    specificationVersion: 'v1',
    id: 'bullets',
    async summarize({ entries, requiredIdentifiers }) {
      const body = (section: string) =>
        section === 'Exact identifiers'
          ? requiredIdentifiers.join('\n')
          : `- ${entries.length} messages`;
      return { summary: SUMMARY_SECTIONS.map((s) => `## ${s}\n${body(s)}`).join('\n\n') };
    },
  };
  const registry = createCompactionRegistry();
  registry.register(bullets);
  const compactor = createCompactor({
    contextWindowTokens: 1000,
    reserveTokens: 200,
    keepRecentTokens: 10,
    registry,
  });
  const result = await compactor.compact({
    sessionId: 'demo',
    store,
    signal: AbortSignal.timeout(120_000),
  });
  if (result.status !== 'compacted') return { status: result.status };
  return {
    status: result.status,
    producerId: result.entry.provenance.producerId,
    firstKeptEntryId: result.entry.firstKeptEntryId,
    keepsIdentifier: result.entry.summary.includes('/srv/app/parser.ts'),
    appended: transcript.at(-1)?.type,
  };
}
