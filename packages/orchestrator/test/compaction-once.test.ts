import { createCompactor } from '@keel/compaction';
import type { CompactorPort, ModelPort, ModelTarget } from '@keel/spec';
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const SUMMARY = [
  '## Goal',
  'Chat about the weather.',
  '## Constraints',
  'None.',
  '## Decisions',
  'None.',
  '## Progress',
  'Questions answered.',
  '## Open items',
  'None.',
  '## Exact identifiers',
  'None.',
].join('\n');

function compactorFactory() {
  return (connect: (target: ModelTarget) => ModelPort) =>
    createCompactor({
      model: connect({ providerId: 'backup', profileId: 'b1', model: 'summarizer' }) as never,
      contextWindowTokens: 100_000,
      reserveTokens: 1_000,
      keepRecentTokens: 8,
      retry: { maxAttemptsPerChunk: 1, baseDelayMs: 0 },
    }) as unknown as CompactorPort;
}

describe('a turn compacts at most once', () => {
  it('overflow, compaction, overflow again: no second compaction — the turn ends context_overflow after 2 model requests', async () => {
    harness = await createHarness({
      compactor: compactorFactory(),
      models: { primary: 'anthropic/primary' },
      defaultReply: () => 'It is sunny.',
    });
    for (let index = 1; index <= 4; index += 1) {
      await harness.orchestrator.runTurn({ sessionId: 's1', input: `weather question ${index}` });
    }
    harness.events.length = 0;
    const before = harness.sent().length;
    harness.mock.enqueue(
      { behavior: mockFaults.promptTooLong(), match: { model: 'primary' }, times: 2 },
      { behavior: { type: 'ok', text: SUMMARY }, match: { model: 'summarizer' }, times: 5 },
    );
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'and now?' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'context_overflow' });
    expect(
      harness
        .sent()
        .slice(before)
        .map((request) => request.model),
    ).toEqual(['primary', 'summarizer', 'primary']);
    expect(harness.decisions()).toEqual(['compact_and_retry', 'final']);
    const entries = await harness.entries('s1');
    expect(entries.filter((entry) => entry.type === 'compaction')).toHaveLength(1);
    expect(outcome.attempts.map((attempt) => attempt.decision)).toEqual([
      'compact_and_retry',
      'final',
    ]);
  });
});
