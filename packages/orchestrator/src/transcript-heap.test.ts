import { randomUUID } from 'node:crypto';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { TranscriptEntry } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createEntryFactory } from './entries';
import { createTranscriptCache, transcriptView } from './transcript-cache';

// The cache's bound is honest when what it counts is what its views take on V8's heap: measured
// here as the heap in use after full collections, before and after the cache is filled. Code is
// not counted (compiled code, not the views: on a loaded machine the optimizing compiler's output
// lands late, ~300 KB, and read as held it failed the first case), and each case fills the cache
// once unmeasured first, so what runs once per function (feedback, hidden classes) is paid then.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapInUse = () => {
  gc();
  gc();
  let used = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (!space.space_name.startsWith('code')) used += space.space_used_size;
  }
  return used;
};

const factory = createEntryFactory(randomUUID, Date.now);
/** A session of chat turns as the orchestrator writes them, each user message `text(turn)`. */
function chat(turns: number, text: (turn: number) => string): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    const turnId = randomUUID();
    const user = factory.message({ role: 'user', content: [{ type: 'text', text: text(turn) }] });
    const usage = { inputTokens: 13, outputTokens: 1 };
    const answer = { model: 'mock/bench-model', provider: 'mock', usage };
    entries.push(
      user,
      factory.turnStart({ turnId, messageId: user.messageId }),
      factory.message({ role: 'assistant', content: [{ type: 'text', text: 'ok' }], ...answer }),
      factory.turnEnd(
        { kind: 'reply', text: 'ok', messageId: user.messageId, turnId, ...answer, attempts: [] },
        { text: false },
      ),
    );
  }
  return entries;
}

const SESSIONS = 500;
/** What the cache counts against the heap its views took, for sessions made by `make`. */
function countedOverHeld(
  make: (session: number) => TranscriptEntry[],
  sessions = SESSIONS,
): number {
  fill(make, SESSIONS / 5);
  const before = heapInUse();
  const cache = fill(make, sessions);
  const held = heapInUse() - before;
  return cache.bytes / held;
}

/** A cache holding the views of `sessions` sessions made by `make`. */
function fill(
  make: (session: number) => TranscriptEntry[],
  sessions: number,
): ReturnType<typeof createTranscriptCache> {
  const cache = createTranscriptCache({ maxBytes: Number.MAX_SAFE_INTEGER });
  for (let session = 0; session < sessions; session += 1) {
    const view = transcriptView(make(session));
    view.facts.advance(view.entries);
    cache.put(
      `s-${session}`,
      { exists: true, identity: 'f', size: 1, tailLength: 1, tailDigest: 'd' },
      view,
    );
  }
  return cache;
}

// At least what is held (a little under for noise), and not far over it.
const HONEST = { atLeast: 0.95, atMost: 1.5 };

describe('the transcript cache counts the heap its views take', () => {
  it('for chat turns the orchestrator built (short sessions: a session weighs apart)', () => {
    // 4 × the sessions: the smallest views, where what the heap holds besides them (~300 KB
    // more on a loaded machine) weighs most against them.
    const ratio = countedOverHeld(() => chat(5, (turn) => `message ${turn}`), SESSIONS * 4);
    expect(ratio).toBeGreaterThanOrEqual(HONEST.atLeast);
    expect(ratio).toBeLessThanOrEqual(HONEST.atMost);
  });

  it('for entries parsed from a transcript file', () => {
    const lines = Array.from({ length: SESSIONS }, () =>
      chat(5, (turn) => `message ${turn}`).map((entry) => JSON.stringify(entry)),
    );
    const ratio = countedOverHeld((session) =>
      (lines[session] ?? []).map((line) => JSON.parse(line) as TranscriptEntry),
    );
    expect(ratio).toBeGreaterThanOrEqual(HONEST.atLeast);
    expect(ratio).toBeLessThanOrEqual(HONEST.atMost);
  });

  it('for text past U+00FF (two bytes a character on the heap)', () => {
    const ratio = countedOverHeld(() => chat(5, (turn) => `メッセージ ${turn} `.repeat(100)));
    expect(ratio).toBeGreaterThanOrEqual(HONEST.atLeast);
    expect(ratio).toBeLessThanOrEqual(HONEST.atMost);
  });
});
