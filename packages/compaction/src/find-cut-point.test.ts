import type { MessageEntry } from '@keel/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messageEntry } from '../test/message-entry';
import {
  buildTranscript,
  messagesOf,
  toolPairs,
  transcriptArbitrary,
} from '../test/transcript-arbitrary';
import { estimateMessageTokens } from './estimate-tokens';
import { findBlockedCuts, findCutPoint, findLatestUserRequest } from './find-cut-point';

function separatesPair(messages: readonly MessageEntry[], cut: number): boolean {
  return toolPairs(messages).some(([use, result]) => use < cut !== result < cut);
}

function keptTokens(messages: readonly MessageEntry[], cut: number): number {
  return messages.slice(cut).reduce((sum, message) => sum + estimateMessageTokens(message), 0);
}

const keepRecent = fc.integer({ min: 0, max: 400 });

/** Where the token target alone would cut: the largest index keeping `keepRecentTokens`. */
function tokenLimit(messages: readonly MessageEntry[], keepRecentTokens: number): number {
  let limit = messages.length;
  while (limit > 0 && keptTokens(messages, limit) < keepRecentTokens) limit -= 1;
  return limit;
}

describe('the generated transcripts', () => {
  it('exercise every rule: tool pairs, orphans, tool results sent as user messages, and cuts the rules move', () => {
    const samples = fc.sample(fc.tuple(transcriptArbitrary(), keepRecent), {
      numRuns: 400,
      seed: 7,
    });
    const seen = {
      pairs: 0,
      orphans: 0,
      reusedIds: 0,
      userToolResults: 0,
      latestRequestBinds: 0,
      pairBinds: 0,
    };
    for (const [entries, keepRecentTokens] of samples) {
      const messages = messagesOf(entries);
      const found = toolPairs(messages);
      if (found.length > 0) seen.pairs += 1;
      const uses = messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_use'));
      if (uses.length > found.length) seen.orphans += 1;
      if (new Set(uses.map((use) => use.id)).size < uses.length) seen.reusedIds += 1;
      const latest = findLatestUserRequest(messages);
      const userResults = messages.some(
        (m, index) =>
          index > latest && m.role === 'user' && m.content.every((b) => b.type === 'tool_result'),
      );
      if (userResults) seen.userToolResults += 1;
      const limit = tokenLimit(messages, keepRecentTokens);
      if (keptTokens(messages, limit) < keepRecentTokens) continue;
      if (latest >= 0 && latest < limit) seen.latestRequestBinds += 1;
      const target = latest >= 0 ? Math.min(limit, latest) : limit;
      if (target > 0 && findBlockedCuts(messages)[target] === 1) seen.pairBinds += 1;
    }
    // each case in at least 5% of the samples, so the properties below are not vacuous
    for (const count of Object.values(seen)) expect(count).toBeGreaterThanOrEqual(20);
  });
});

/** Checks `property` on the cut of every generated transcript and `keepRecentTokens`. */
function forEveryCut(
  property: (messages: MessageEntry[], cut: number, keepRecentTokens: number) => void,
  options: { maxTurns?: number; numRuns: number },
): void {
  fc.assert(
    fc.property(transcriptArbitrary(options.maxTurns), keepRecent, (entries, keepRecentTokens) => {
      const messages = messagesOf(entries);
      const tokens = messages.map(estimateMessageTokens);
      property(
        messages,
        findCutPoint(messages, { keepRecentTokens, tokens }).index,
        keepRecentTokens,
      );
    }),
    { numRuns: options.numRuns },
  );
}

describe('findCutPoint', () => {
  it('never separates a tool_use from its tool_result', () => {
    forEveryCut(
      (messages, cut) => {
        expect(separatesPair(messages, cut)).toBe(false);
      },
      { numRuns: 300 },
    );
  });

  it('never compacts the latest user request', () => {
    forEveryCut(
      (messages, cut) => {
        const latest = findLatestUserRequest(messages);
        if (latest >= 0) expect(cut).toBeLessThanOrEqual(latest);
      },
      { numRuns: 300 },
    );
  });

  it('keeps at least keepRecentTokens whenever it compacts anything', () => {
    forEveryCut(
      (messages, cut, keepRecentTokens) => {
        if (cut > 0) expect(keptTokens(messages, cut)).toBeGreaterThanOrEqual(keepRecentTokens);
      },
      { numRuns: 300 },
    );
  });

  it('compacts as much as the rules allow (no later cut satisfies all of them)', () => {
    forEveryCut(
      (messages, cut, keepRecentTokens) => {
        const latest = findLatestUserRequest(messages);
        for (let later = cut + 1; later <= messages.length; later += 1) {
          const allowed =
            !separatesPair(messages, later) &&
            (latest < 0 || later <= latest) &&
            keptTokens(messages, later) >= keepRecentTokens;
          expect(allowed).toBe(false);
        }
      },
      { maxTurns: 8, numRuns: 200 },
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
      const cut = findCutPoint(messages, { keepRecentTokens: keep, tokens }).index;
      expect(cut === 4 || cut === 5).toBe(false);
      seen.add(cut);
    }
    // the token target passes through 4 and 5; the cut moves back to 3 instead
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 6, 7]);
  });

  it('pairs a reused tool id with the nearest use before each result, not the first', () => {
    const use = (id: string) => [{ type: 'tool_use' as const, id, name: 'run', input: {} }];
    const result = (id: string) => [{ type: 'tool_result' as const, toolUseId: id, content: 'ok' }];
    // the same id in two exchanges, as after a CLI resume; the first use was never answered
    const messages = [
      messageEntry('u0', 'user', 'a'.repeat(400)),
      messageEntry('a1', 'assistant', use('toolu_01')),
      messageEntry('u2', 'user', 'b'.repeat(400)),
      messageEntry('a3', 'assistant', use('toolu_01')),
      messageEntry('t4', 'tool', result('toolu_01')),
      messageEntry('a5', 'assistant', 'c'.repeat(400)),
      messageEntry('u6', 'user', 'd'.repeat(400)),
      messageEntry('a7', 'assistant', use('toolu_01')),
      messageEntry('t8', 'tool', result('toolu_01')),
      messageEntry('u9', 'user', 'the latest request'),
    ];
    // only the exchanges a3→t4 and a7→t8 hold cuts back
    expect([...findBlockedCuts(messages)]).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0]);
    const tokens = messages.map(estimateMessageTokens);
    const keeping = (from: number) => tokens.slice(from).reduce((sum, t) => sum + t, 0);
    expect(findCutPoint(messages, { keepRecentTokens: keeping(6), tokens }).index).toBe(6);
    expect(findCutPoint(messages, { keepRecentTokens: keeping(2), tokens }).index).toBe(2);
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
    ).toEqual({ index: 0, blockedBy: 'keep-recent' });
  });
});
