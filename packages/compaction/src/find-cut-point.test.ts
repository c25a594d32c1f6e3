import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateMessageTokens } from './estimate-tokens';
import { findCutPoint, findLatestUserRequest } from './find-cut-point';
import {
  buildTranscript,
  messagesOf,
  transcriptArbitrary,
} from './test-support/transcript-arbitrary';
import type { MessageEntry } from './types';

function pairs(messages: readonly MessageEntry[]): Array<[number, number]> {
  const uses = new Map<string, number>();
  const found: Array<[number, number]> = [];
  messages.forEach((message, index) => {
    if (typeof message.content === 'string') return;
    for (const block of message.content) if (block.type === 'tool_use') uses.set(block.id, index);
  });
  messages.forEach((message, index) => {
    if (typeof message.content === 'string') return;
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      const use = uses.get(block.toolUseId);
      if (use !== undefined) found.push([use, index]);
    }
  });
  return found;
}

function separatesPair(messages: readonly MessageEntry[], cut: number): boolean {
  return pairs(messages).some(([use, result]) => use < cut !== result < cut);
}

function keptTokens(messages: readonly MessageEntry[], cut: number): number {
  return messages.slice(cut).reduce((sum, message) => sum + estimateMessageTokens(message), 0);
}

const keepRecent = fc.integer({ min: 0, max: 400 });

describe('findCutPoint', () => {
  it('never separates a tool_use from its tool_result', () => {
    fc.assert(
      fc.property(transcriptArbitrary(), keepRecent, (entries, keepRecentTokens) => {
        const messages = messagesOf(entries);
        const cut = findCutPoint(messages, {
          keepRecentTokens,
          tokens: messages.map(estimateMessageTokens),
        });
        expect(separatesPair(messages, cut)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('never compacts the latest user request', () => {
    fc.assert(
      fc.property(transcriptArbitrary(), keepRecent, (entries, keepRecentTokens) => {
        const messages = messagesOf(entries);
        const cut = findCutPoint(messages, {
          keepRecentTokens,
          tokens: messages.map(estimateMessageTokens),
        });
        const latest = findLatestUserRequest(messages);
        if (latest >= 0) expect(cut).toBeLessThanOrEqual(latest);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps at least keepRecentTokens whenever it compacts anything', () => {
    fc.assert(
      fc.property(transcriptArbitrary(), keepRecent, (entries, keepRecentTokens) => {
        const messages = messagesOf(entries);
        const cut = findCutPoint(messages, {
          keepRecentTokens,
          tokens: messages.map(estimateMessageTokens),
        });
        if (cut > 0) expect(keptTokens(messages, cut)).toBeGreaterThanOrEqual(keepRecentTokens);
      }),
      { numRuns: 300 },
    );
  });

  it('compacts as much as the rules allow (no later cut satisfies all of them)', () => {
    fc.assert(
      fc.property(transcriptArbitrary(8), keepRecent, (entries, keepRecentTokens) => {
        const messages = messagesOf(entries);
        const cut = findCutPoint(messages, {
          keepRecentTokens,
          tokens: messages.map(estimateMessageTokens),
        });
        const latest = findLatestUserRequest(messages);
        for (let later = cut + 1; later <= messages.length; later += 1) {
          const allowed =
            !separatesPair(messages, later) &&
            (latest < 0 || later <= latest) &&
            keptTokens(messages, later) >= keepRecentTokens;
          expect(allowed).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('does not cut inside a tool exchange even when the token target lands there', () => {
    const entries = buildTranscript([
      { request: 'a'.repeat(400), steps: [], orphan: false, withTurnRecord: false },
      {
        request: 'read the files',
        steps: [{ text: 'reading', tools: 2, resultsAsUser: false, splitResults: true }],
        orphan: false,
        withTurnRecord: false,
      },
      { request: 'b'.repeat(40), steps: [], orphan: false, withTurnRecord: false },
    ]);
    const messages = messagesOf(entries);
    // messages: u0 a1 | u2 a3(2 tools) t4 t5 a6 | u7 a8
    const tokens = messages.map(estimateMessageTokens);
    const seen = new Set<number>();
    for (let keep = 0; keep < 200; keep += 1) {
      const cut = findCutPoint(messages, { keepRecentTokens: keep, tokens });
      expect(cut === 4 || cut === 5).toBe(false);
      seen.add(cut);
    }
    // the token target passes through 4 and 5; the cut moves back to 3 instead
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 6, 7]);
  });

  it('returns 0 when the transcript is smaller than keepRecentTokens', () => {
    const messages = messagesOf(
      buildTranscript([{ request: 'hello', steps: [], orphan: false, withTurnRecord: false }]),
    );
    expect(
      findCutPoint(messages, {
        keepRecentTokens: 10_000,
        tokens: messages.map(estimateMessageTokens),
      }),
    ).toBe(0);
  });
});
