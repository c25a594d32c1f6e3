import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
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

const summarizer = { model: 'summarizer' };
const SUMMARY = [
  '## Goal',
  'Chat about the weather.',
  '## Constraints',
  'None.',
  '## Decisions',
  'None.',
  '## Progress',
  'Three questions answered.',
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

async function seed(h: Harness, count: number) {
  for (let index = 1; index <= count; index += 1) {
    await h.orchestrator.runTurn({ sessionId: 's1', input: `weather question number ${index}` });
  }
  h.events.length = 0;
  return h.sent().length;
}

describe('context overflow: compact, then retry once', () => {
  it('compacts through the fence and the retry succeeds', async () => {
    harness = await createHarness({
      compactor: compactorFactory(),
      defaultReply: () => 'It is sunny.',
    });
    const before = await seed(harness, 3);
    harness.mock.enqueue(
      { behavior: mockFaults.promptTooLong(), match: { model: 'primary' } },
      { behavior: { type: 'ok', text: SUMMARY }, match: summarizer },
    );
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'and tomorrow?' });
    expect(outcome.kind).toBe('reply');
    expect(harness.decisions()).toEqual(['compact_and_retry']);
    expect(
      harness
        .sent()
        .slice(before)
        .map((request) => request.model),
    ).toEqual(['primary', 'summarizer', 'primary']);
    const entries = await harness.entries('s1');
    const compaction = entries.find((entry) => entry.type === 'compaction');
    expect(compaction).toMatchObject({
      summary: SUMMARY,
      provenance: { producerId: 'builtin:llm' },
    });
    // The retried request carries the summary and no longer the compacted questions.
    const retried = JSON.stringify(harness.mock.requests.at(-1)!.body);
    expect(retried).toContain('Three questions answered.');
    expect(retried).not.toContain('weather question number 1');
    expect(harness.events.some((event) => event.type === 'compaction')).toBe(true);
  });

  it('a failing compaction ends with a clear error and leaves history byte for byte as it was', async () => {
    harness = await createHarness({
      compactor: compactorFactory(),
      defaultReply: () => 'It is sunny.',
    });
    await seed(harness, 3);
    const file = join(harness.sessionsDir, 's1.jsonl');
    const bytesBefore = await readFile(file);
    harness.mock.enqueue(
      { behavior: mockFaults.promptTooLong(), match: { model: 'primary' } },
      {
        behavior: { type: 'http-error', status: 400, message: 'bad summary request' },
        match: summarizer,
      },
      {
        behavior: { type: 'http-error', status: 400, message: 'bad summary request' },
        match: summarizer,
      },
    );
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'and tomorrow?' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'context_overflow' });
    expect(outcome.text).toMatch(/could not be summarized/);
    const bytesAfter = await readFile(file);
    expect(bytesAfter.subarray(0, bytesBefore.length).equals(bytesBefore)).toBe(true);
    const added = bytesAfter
      .subarray(bytesBefore.length)
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(added.map((entry) => `${entry.type}:${entry.role ?? entry.phase}`)).toEqual([
      'message:user',
      'turn:start',
      'turn:end',
    ]);
  });
});

describe('manual compaction', () => {
  it('compacts between turns through a fence of its own', async () => {
    harness = await createHarness({
      compactor: compactorFactory(),
      defaultReply: () => 'It is sunny.',
    });
    await seed(harness, 3);
    harness.mock.enqueue({ behavior: { type: 'ok', text: SUMMARY }, match: summarizer });
    const result = await harness.orchestrator.compact('s1');
    expect(result.status).toBe('compacted');
    expect((await harness.entries('s1')).at(-1)).toMatchObject({
      type: 'compaction',
      summary: SUMMARY,
    });
  });

  it('refuses clearly when no compactor is configured', async () => {
    harness = await createHarness();
    await expect(harness.orchestrator.compact('s1')).rejects.toMatchObject({ path: 'compactor' });
  });
});
