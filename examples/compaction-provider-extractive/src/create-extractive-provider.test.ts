import type { CompactionEntry, CompactionStore, TranscriptEntry } from '@keel/compaction';
import { createCompactor, estimateTextTokens, validateSummary } from '@keel/compaction';
import { describeCompactionProviderConformance } from '@keel/testing/vitest';
import { describe, expect, it } from 'vitest';
import { createExtractiveProvider } from './create-extractive-provider';

// the budget counted as the compactor counts it
describeCompactionProviderConformance('extractive', () => createExtractiveProvider(), {
  estimateTokens: estimateTextTokens,
});

function memoryStore(
  initial: TranscriptEntry[],
): CompactionStore & { appended: CompactionEntry[] } {
  const appended: CompactionEntry[] = [];
  return {
    appended,
    read: async () => ({ entries: [...initial, ...appended] }),
    append: async (_sessionId, entries) => {
      appended.push(...entries);
    },
  };
}

const at = '2026-01-01T00:00:00.000Z';
const transcript: TranscriptEntry[] = [
  {
    type: 'message',
    id: 'm1',
    messageId: 'm1',
    timestamp: at,
    role: 'user',
    content: [
      {
        type: 'text',
        text: `Migrate the orders table in db/migrations/0042_orders.sql. Never drop data. ${'Context. '.repeat(300)}`,
      },
    ],
  },
  {
    type: 'message',
    id: 'm2',
    messageId: 'm2',
    timestamp: at,
    role: 'assistant',
    content: [
      { type: 'text', text: 'I decided to add the column first and backfill later.' },
      {
        type: 'tool_use',
        id: 'toolu_9',
        name: 'run_sql',
        input: { file: 'db/migrations/0042_orders.sql' },
      },
    ],
  },
  {
    type: 'message',
    id: 'm3',
    messageId: 'm3',
    timestamp: at,
    role: 'tool',
    content: [{ type: 'tool_result', toolUseId: 'toolu_9', content: 'ALTER TABLE ok' }],
  },
  {
    type: 'message',
    id: 'm4',
    messageId: 'm4',
    timestamp: at,
    role: 'user',
    content: [{ type: 'text', text: 'Good. Now write the backfill job.' }],
  },
];

describe('createExtractiveProvider', () => {
  it('is deterministic', async () => {
    const provider = createExtractiveProvider();
    const request = {
      entries: transcript.filter((entry) => entry.type === 'message'),
      previousSummary: undefined,
      instructions: '',
      signal: new AbortController().signal,
      budgetTokens: 500,
      requiredSections: [],
      requiredIdentifiers: ['db/migrations/0042_orders.sql'],
    };
    const first = await provider.summarize(request);
    const second = await provider.summarize(request);
    expect(second.summary).toBe(first.summary);
    expect(first.summary).toContain('- Never drop data.');
    expect(first.summary).toContain('- I decided to add the column first and backfill later.');
    expect(first.summary).toContain('run_sql: ok (ALTER TABLE ok)');
  });

  it('passes the compactor validation and is committed as the producer', async () => {
    const store = memoryStore(transcript);
    const compactor = createCompactor({
      contextWindowTokens: 600,
      reserveTokens: 100,
      keepRecentTokens: 5,
      summaryMaxTokens: 400,
      providers: [createExtractiveProvider()],
    });
    const result = await compactor.compact({
      sessionId: 'orders',
      store,
      signal: new AbortController().signal,
    });
    expect(result.status).toBe('compacted');
    expect(store.appended).toHaveLength(1);
    const entry = store.appended[0];
    expect(entry?.provenance.producerId).toBe('extractive');
    expect(entry?.firstKeptEntryId).toBe('m4');
    expect(
      validateSummary(entry?.summary, {
        budgetTokens: 400,
        requiredIdentifiers: ['db/migrations/0042_orders.sql'],
      }),
    ).toEqual({ valid: true });
  });
});
