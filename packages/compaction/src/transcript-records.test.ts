import type {
  CompactionEntry,
  CompactionProvider,
  MessageEntry,
  TranscriptEntry,
} from '@keel/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../test/compactor-harness';
import { messageEntry } from '../test/message-entry';
import { summaryKeeping } from '../test/summary-reply';
import {
  messagesOf,
  SELECTED_MODEL,
  toolPairs,
  transcriptArbitrary,
  turnEndText,
} from '../test/transcript-arbitrary';
import { findLatestUserRequest } from './find-cut-point';
import { planCompaction } from './plan-compaction';
import { selectContext } from './select-context';
import { computeSourceDigest } from './source-digest';

/*
 * Transcript format v2 interleaves `turn` records (start, and end with its outcome and
 * user-facing text) and `model-selection` records with the messages. Compaction summarizes
 * messages only: these records are never compacted, kept, counted, cut at or asked for.
 */

const at = '2026-01-01T00:00:00.000Z';
const budget = fc.record({
  contextWindowTokens: fc.integer({ min: 50, max: 3000 }),
  reserveTokens: fc.integer({ min: 0, max: 40 }),
  keepRecentTokens: fc.integer({ min: 0, max: 300 }),
  chunkMaxTokens: fc.integer({ min: 1, max: 200 }),
});
const isRecord = (entry: TranscriptEntry): boolean =>
  entry.type === 'turn' || entry.type === 'model-selection';

describe('the planner', () => {
  it('plans a transcript with records exactly as the same messages without them', () => {
    let withRecords = 0;
    fc.assert(
      fc.property(transcriptArbitrary(), budget, (entries, options) => {
        if (entries.some(isRecord)) withRecords += 1;
        const plan = planCompaction(entries, options);
        expect(plan).toEqual(planCompaction(messagesOf(entries), options));
        const messageIds = new Set(messagesOf(entries).map((message) => message.id));
        if (plan.firstKeptEntryId !== null)
          expect(messageIds.has(plan.firstKeptEntryId)).toBe(true);
      }),
      { numRuns: 300 },
    );
    expect(withRecords).toBeGreaterThan(100);
  });
});

describe('the cut', () => {
  it('never separates a tool exchange that records interrupt, nor drops the latest request', () => {
    const use = [{ type: 'tool_use' as const, id: 'toolu_7', name: 'run', input: {} }];
    const entries: TranscriptEntry[] = [
      messageEntry('m1', 'user', 'a'.repeat(800)),
      messageEntry('m2', 'assistant', use),
      { type: 'turn', id: 't1', timestamp: at, turnId: 'turn-1', phase: 'end', outcome: 'aborted' },
      { type: 'model-selection', id: 's1', timestamp: at, model: SELECTED_MODEL, source: 'healed' },
      { type: 'turn', id: 't2', timestamp: at, turnId: 'turn-2', phase: 'start' },
      messageEntry('m3', 'tool', [{ type: 'tool_result', toolUseId: 'toolu_7', content: 'ok' }]),
      messageEntry('m4', 'user', 'the latest request'),
      { type: 'turn', id: 't3', timestamp: at, turnId: 'turn-2', phase: 'end', outcome: 'reply' },
    ];
    for (let keepRecentTokens = 0; keepRecentTokens < 60; keepRecentTokens += 1) {
      const plan = planCompaction(entries, {
        contextWindowTokens: 1000,
        reserveTokens: 0,
        keepRecentTokens,
      });
      expect(['m1', 'm2', 'm4']).toContain(plan.firstKeptEntryId);
      expect(plan.kept.map((message) => message.id)).toContain('m4');
    }
  });

  it('keeps every exchange whole and the latest request, over generated transcripts with records', () => {
    fc.assert(
      fc.property(transcriptArbitrary(), budget, (entries, options) => {
        const plan = planCompaction(entries, options);
        const messages = messagesOf(entries);
        const cut = plan.compacted.length;
        for (const [use, result] of toolPairs(messages)) expect(use < cut).toBe(result < cut);
        const latest = findLatestUserRequest(messages);
        if (latest >= 0) expect(cut).toBeLessThanOrEqual(latest);
      }),
      { numRuns: 300 },
    );
  });
});

describe('context selection', () => {
  it('starts at the first kept message and leaves records out, before and after the compaction', () => {
    const compaction: CompactionEntry = {
      type: 'compaction',
      id: 'c1',
      timestamp: at,
      summary: '## Goal\n- earlier work',
      firstKeptEntryId: 'm3',
      provenance: {
        producerId: 'p',
        attempts: 1,
        tokensBefore: 1,
        tokensAfter: 1,
        sourceDigest: 'd',
      },
    };
    const entries: TranscriptEntry[] = [
      messageEntry('m1', 'user', 'old'),
      { type: 'turn', id: 't1', timestamp: at, turnId: 'turn-1', phase: 'end', outcome: 'reply' },
      { type: 'model-selection', id: 's1', timestamp: at, model: SELECTED_MODEL, source: 'user' },
      { type: 'turn', id: 't2', timestamp: at, turnId: 'turn-2', phase: 'start' },
      messageEntry('m3', 'user', 'kept'),
      compaction,
      { type: 'model-selection', id: 's2', timestamp: at, model: 'anthropic/x', source: 'user' },
      messageEntry('m4', 'assistant', 'after'),
      { type: 'turn', id: 't3', timestamp: at, turnId: 'turn-2', phase: 'end', outcome: 'reply' },
    ];
    const context = selectContext(entries);
    expect(context.previousSummary).toBe('## Goal\n- earlier work');
    expect(context.messages.map((message: MessageEntry) => message.id)).toEqual(['m3', 'm4']);
  });
});

describe('summary validation', () => {
  const setup = useHarness();

  it('asks for identifiers of the compacted messages only, never of turn text or a selected model', async () => {
    const seen: Array<{ ids: readonly string[]; types: string[] }> = [];
    const recorder: CompactionProvider = {
      specificationVersion: 'v1',
      id: 'recorder',
      async summarize(request) {
        seen.push({
          ids: request.requiredIdentifiers,
          types: request.entries.map((entry) => entry.type),
        });
        return { summary: summaryKeeping(request.requiredIdentifiers) };
      },
    };
    const entries: TranscriptEntry[] = [
      { type: 'model-selection', id: 's1', timestamp: at, model: SELECTED_MODEL, source: 'user' },
      { type: 'turn', id: 't1', timestamp: at, turnId: 'turn-0', phase: 'start' },
      messageEntry('m1', 'user', `Fix /srv/app/main.ts. ${'Context. '.repeat(200)}`),
      messageEntry('m2', 'assistant', 'Fixed in commit 3f2a9c1d.'),
      {
        type: 'turn',
        id: 't2',
        timestamp: at,
        turnId: 'turn-0',
        phase: 'end',
        outcome: 'reply',
        text: turnEndText(0),
        model: SELECTED_MODEL,
      },
      messageEntry('m3', 'user', 'Now the docs.'),
    ];
    const h = await setup(entries);
    const compactor = h.compactor({ model: undefined, providers: [recorder], keepRecentTokens: 1 });
    const result = await h.compacted(compactor, { trigger: 'manual' });
    expect(seen).toEqual([
      { ids: ['/srv/app/main.ts', '3f2a9c1d'], types: ['message', 'message'] },
    ]);
    expect(result.entry.firstKeptEntryId).toBe('m3');
    expect(result.entry.provenance.sourceDigest).toBe(
      computeSourceDigest(messagesOf(entries).slice(0, 2)),
    );
  });
});
