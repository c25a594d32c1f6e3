import type { CompactionEntry, MessageEntry, TranscriptEntry } from '@keel/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messageEntry } from '../test/message-entry';
import { buildTranscript, messagesOf, transcriptArbitrary } from '../test/transcript-arbitrary';
import { chunkMessages } from './chunk-messages';
import {
  estimateContextTokens,
  estimateMessageTokens,
  estimateTextTokens,
} from './estimate-tokens';
import { planCompaction, shouldCompact } from './plan-compaction';
import { selectContext } from './select-context';

const budget = fc.record({
  contextWindowTokens: fc.integer({ min: 50, max: 3000 }),
  reserveTokens: fc.integer({ min: 0, max: 40 }),
  keepRecentTokens: fc.integer({ min: 0, max: 300 }),
  chunkMaxTokens: fc.integer({ min: 1, max: 200 }),
});

describe('chunkMessages', () => {
  it('covers every message once, in order, each chunk within budget unless one oversized message', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 80 }),
        fc.integer({ min: 1, max: 250 }),
        (tokens, maxChunkTokens) => {
          const chunks = chunkMessages(tokens, maxChunkTokens);
          let next = 0;
          for (const chunk of chunks) {
            expect(chunk.start).toBe(next);
            expect(chunk.end).toBeGreaterThan(chunk.start);
            const sum = tokens.slice(chunk.start, chunk.end).reduce((a, b) => a + b, 0);
            expect(chunk.tokens).toBe(sum);
            if (chunk.oversized) expect(chunk.end - chunk.start).toBe(1);
            else expect(sum).toBeLessThanOrEqual(maxChunkTokens);
            next = chunk.end;
          }
          expect(next).toBe(tokens.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('planCompaction', () => {
  it('splits the context into compacted then kept, and chunks exactly the compacted range', () => {
    fc.assert(
      fc.property(transcriptArbitrary(), budget, (entries, options) => {
        const plan = planCompaction(entries, options);
        const messages = messagesOf(entries);
        expect([...plan.compacted, ...plan.kept]).toEqual(messages);
        expect(plan.firstKeptEntryId).toBe(plan.kept[0]?.id ?? null);
        expect(plan.chunks.at(-1)?.end ?? 0).toBe(plan.compacted.length);
        const compactedTokens = plan.compacted.reduce((s, m) => s + estimateMessageTokens(m), 0);
        expect(plan.compactedTokens).toBe(compactedTokens);
        if (plan.shouldCompact) {
          expect(plan.compacted.length).toBeGreaterThan(0);
          expect(plan.tokensBefore).toBeGreaterThan(
            options.contextWindowTokens - options.reserveTokens,
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it('after a compaction, plans only the context that compaction left', () => {
    fc.assert(
      fc.property(transcriptArbitrary(), budget, (entries, options) => {
        const first = planCompaction(entries, options);
        const compaction: CompactionEntry = {
          type: 'compaction',
          id: 'c-1',
          timestamp: '2026-01-01T00:00:00.000Z',
          summary: '## Goal\nsummary',
          firstKeptEntryId: first.firstKeptEntryId,
          provenance: {
            producerId: 'test',
            attempts: 1,
            tokensBefore: 0,
            tokensAfter: 0,
            sourceDigest: 'x',
          },
        };
        const later: MessageEntry = messageEntry('after-1', 'user', 'and now?');
        const next = planCompaction([...entries, compaction, later], options);
        expect(next.previousSummary).toBe('## Goal\nsummary');
        expect([...next.compacted, ...next.kept]).toEqual([...first.kept, later]);
      }),
      { numRuns: 200 },
    );
  });
});

describe('a plan with nothing to compact says why', () => {
  const budget = { contextWindowTokens: 100_000, reserveTokens: 0 };
  const use = (id: string) => [{ type: 'tool_use' as const, id, name: 'run', input: {} }];
  const result = (id: string) => [{ type: 'tool_result' as const, toolUseId: id, content: 'ok' }];

  it('no messages in context', () => {
    const plan = planCompaction([], { ...budget, keepRecentTokens: 0 });
    expect(plan.compacted).toEqual([]);
    expect(plan.whyNothingToCompact).toBe('no messages in context');
  });

  it('everything in context within keepRecentTokens', () => {
    const entries = [
      messageEntry('m1', 'user', 'a'.repeat(400)),
      messageEntry('m2', 'assistant', 'ok'),
    ];
    const plan = planCompaction(entries, { ...budget, keepRecentTokens: 5000 });
    expect(plan.compacted).toEqual([]);
    expect(plan.whyNothingToCompact).toBe(
      'keepRecentTokens (5000) covers all 2 messages in context (101 tokens)',
    );
  });

  it('only the latest user request and what follows it', () => {
    const entries = [
      messageEntry('m1', 'user', 'a'.repeat(400)),
      messageEntry('m2', 'assistant', 'b'.repeat(4000)),
    ];
    const plan = planCompaction(entries, { ...budget, keepRecentTokens: 10 });
    expect(plan.compacted).toEqual([]);
    expect(plan.whyNothingToCompact).toBe(
      'only the latest user request and what follows it remain (2 messages, 1100 tokens); the latest request is never compacted',
    );
  });

  it('every earlier cut would split a tool exchange', () => {
    // the user wrote while the tool ran: the latest request sits inside the exchange
    const entries = [
      messageEntry('m1', 'assistant', use('toolu_1')),
      messageEntry('m2', 'user', 'stop after this one'),
      messageEntry('m3', 'tool', result('toolu_1')),
    ];
    const plan = planCompaction(entries, { ...budget, keepRecentTokens: 0 });
    expect(plan.compacted).toEqual([]);
    expect(plan.whyNothingToCompact).toBe(
      'every cut before the latest user request would separate a tool_use from its tool_result',
    );
  });

  it('is undefined when something can be compacted', () => {
    const entries = [
      messageEntry('m1', 'user', 'a'.repeat(400)),
      messageEntry('m2', 'user', 'the latest request'),
    ];
    expect(planCompaction(entries, { ...budget, keepRecentTokens: 0 }).whyNothingToCompact).toBe(
      undefined,
    );
  });
});

describe('estimateContextTokens', () => {
  it('is the character estimate of summary and messages when no usage is known', () => {
    fc.assert(
      fc.property(transcriptArbitrary(), fc.string(), (entries, summary) => {
        const messages = messagesOf(entries);
        const expected = messages.reduce(
          (s, m) => s + estimateMessageTokens(m),
          estimateTextTokens(summary),
        );
        expect(estimateContextTokens(messages, summary)).toEqual({
          tokens: expected,
          source: 'chars',
        });
      }),
    );
  });

  it('anchors on the newest provider usage and estimates only what came after', () => {
    const messages = messagesOf(
      buildTranscript([
        { request: 'x'.repeat(4000), steps: [], orphan: false, withTurnRecord: false },
        { request: 'y'.repeat(40), steps: [], orphan: false, withTurnRecord: false },
      ]),
    );
    // messages: user(1000 tok) assistant user(10 tok) assistant
    const withUsage = messages.map((message, index) =>
      index === 1 ? { ...message, usage: { inputTokens: 1500, outputTokens: 20 } } : message,
    );
    const after = estimateMessageTokens(messages[2]!) + estimateMessageTokens(messages[3]!);
    expect(estimateContextTokens(withUsage)).toEqual({ tokens: 1520 + after, source: 'usage' });
  });

  it('ignores usage recorded before the newest compaction', () => {
    const entries: TranscriptEntry[] = [
      messageEntry('m1', 'user', 'q'.repeat(400)),
      messageEntry('m2', 'assistant', 'a'.repeat(40), {
        usage: { inputTokens: 90_000, outputTokens: 10 },
      }),
      {
        type: 'compaction',
        id: 'c1',
        timestamp: 't',
        summary: 's'.repeat(80),
        firstKeptEntryId: 'm2',
        provenance: {
          producerId: 'p',
          attempts: 1,
          tokensBefore: 1,
          tokensAfter: 1,
          sourceDigest: 'd',
        },
      },
    ];
    const context = selectContext(entries);
    expect(context.messages.map((m) => m.id)).toEqual(['m2']);
    expect(estimateContextTokens(context.messages, context.previousSummary)).toEqual({
      tokens: 20 + 10,
      source: 'chars',
    });
  });
});

describe('shouldCompact', () => {
  it('is true exactly above window − reserve and above keepRecentTokens', () => {
    fc.assert(
      fc.property(
        fc.nat(500_000),
        fc.nat(300_000),
        fc.nat(50_000),
        fc.nat(100_000),
        (tokens, contextWindowTokens, reserveTokens, keepRecentTokens) => {
          const result = shouldCompact({
            tokens,
            contextWindowTokens,
            reserveTokens,
            keepRecentTokens,
          });
          expect(result).toBe(
            tokens > contextWindowTokens - reserveTokens && tokens > keepRecentTokens,
          );
        },
      ),
    );
    expect(
      shouldCompact({
        tokens: 190_000,
        contextWindowTokens: 200_000,
        reserveTokens: 16_384,
        keepRecentTokens: 20_000,
      }),
    ).toBe(true);
    expect(
      shouldCompact({
        tokens: 180_000,
        contextWindowTokens: 200_000,
        reserveTokens: 16_384,
        keepRecentTokens: 20_000,
      }),
    ).toBe(false);
  });
});
