import type { AttemptRecord, TranscriptEntry, TurnEvent } from '@keel/spec';
import { type MockBehavior, mockFaults, seededRandom } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trailingOrphans } from '../src/trailing-orphans';
import { createHarness, type Harness } from './harness';

const SEED = Number(process.env['KEEL_FUZZ_SEED'] ?? 20261130);
const TURNS = Number(process.env['KEEL_FUZZ_TURNS'] ?? 2000);
const random = seededRandom(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

/** One random provider behaviour; mostly faults, so that every path is walked often. */
function randomBehaviour(): MockBehavior {
  const roll = random();
  if (roll < 0.3)
    return {
      type: 'ok',
      ...(random() < 0.2 ? { toolCalls: [{ name: 'lookup', input: {} }] } : {}),
    };
  if (roll < 0.4) return { type: 'reset-before-headers' };
  if (roll < 0.5) return { type: 'http-error', status: pick([500, 502, 503]) };
  if (roll < 0.62) return mockFaults.overloaded();
  if (roll < 0.72) return mockFaults.rateLimited({ retryAfterSeconds: pick([1, 5, 30, 3600]) });
  if (roll < 0.8)
    return {
      type: 'stream-error',
      afterChunks: 1,
      errorType: pick(['overloaded_error', 'api_error']),
    };
  if (roll < 0.86) return { type: 'reset-after-chunks', chunks: 2 };
  if (roll < 0.9) return { type: 'truncated-stream', chunks: 1 };
  if (roll < 0.92) return { type: 'stall', afterChunks: 1 };
  if (roll < 0.95) return { type: 'http-error', status: 400, message: 'bad request' };
  return mockFaults.unauthorized();
}

/**
 * Where a turn's attempt records do not explain themselves: every attempt that did not answer
 * and is followed by another carries a decision, and a move label names the move that really
 * followed (same target, another profile of the model, another model); a reply's answering
 * attempt carries none.
 */
function untruthfulDecisions(attempts: readonly AttemptRecord[], kind: string): string[] {
  const problems: string[] = [];
  const model = (attempt: AttemptRecord) => `${attempt.target.providerId}/${attempt.target.model}`;
  attempts.forEach((attempt, index) => {
    const next = attempts[index + 1];
    const where = `attempt ${attempt.attempt} (${attempt.outcome}, ${attempt.decision})`;
    if (next === undefined) {
      if (kind === 'reply' && (attempt.outcome !== 'ok' || attempt.decision !== undefined))
        problems.push(`${where} ends a reply`);
      return;
    }
    if (attempt.outcome === 'ok') return; // the next step of a tool loop
    const sameModel = model(attempt) === model(next);
    const sameTarget = sameModel && attempt.target.profileId === next.target.profileId;
    switch (attempt.decision) {
      case undefined:
        problems.push(`${where} has no decision before attempt ${next.attempt}`);
        break;
      case 'retry_same':
      case 'compact_and_retry':
        if (!sameTarget) problems.push(`${where} but attempt ${next.attempt} went elsewhere`);
        break;
      case 'rotate_profile':
        if (!sameModel || sameTarget) problems.push(`${where} but not another profile next`);
        break;
      case 'fallback_model':
        if (sameModel) problems.push(`${where} but the same model next`);
        break;
      case 'final':
      case 'resend':
        problems.push(`${where} yet attempt ${next.attempt} followed`);
        break;
      default:
        break; // wait and switch_model may go anywhere
    }
  });
  return problems;
}

let harness: Harness;
let foreignWrite = false;
const events: TurnEvent[] = [];

beforeAll(async () => {
  harness = await createHarness({
    tools: {
      definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
      async run() {
        return { content: 'result' };
      },
    },
    overrides: {
      random,
      maxSteps: 4,
      callTimeouts: { firstTokenTimeoutMs: 150, stallTimeoutMs: 150, timeoutMs: 5_000 },
    },
    beforeStreamEnds: async () => {
      if (!foreignWrite) return;
      foreignWrite = false;
      await harness.storage.append('s0', [foreignEntry()]);
    },
  });
  harness.orchestrator.subscribe((event) => events.push(event));
});
afterAll(() => harness.close());

let foreignCount = 0;
function foreignEntry(): TranscriptEntry {
  foreignCount += 1;
  const id = `foreign-${foreignCount}`;
  return {
    type: 'message',
    id,
    messageId: id,
    timestamp: new Date().toISOString(),
    role: 'assistant',
    content: [{ type: 'text', text: 'another writer' }],
  };
}

describe(`seeded fuzz (seed ${SEED}, ${TURNS} turns; KEEL_FUZZ_SEED / KEEL_FUZZ_TURNS to change)`, () => {
  it('every turn ends exactly once, within its request ceiling, with truthful decisions, leaving a parseable transcript with no trailing orphan and its user message', {
    timeout: 600_000,
  }, async () => {
    const sessions = ['s0', 's1', 's2', 's3'];
    const kinds = new Map<string, number>();
    for (let turn = 0; turn < TURNS; turn += 1) {
      const sessionId = turn % 7 === 0 ? 's0' : pick(sessions);
      // Time passes between messages, so that cooldowns and breakers also come to an end.
      harness.clock.advance(random() < 0.05 ? 20 * 60_000 : Math.floor(random() * 30_000));
      harness.mock.reset();
      harness.mock.enqueue(...Array.from({ length: 12 }, randomBehaviour));
      foreignWrite = sessionId === 's0' && random() < 0.3;
      const before = events.length;
      const outcome = await harness.orchestrator.runTurn({ sessionId, input: `message ${turn}` });
      const sent = harness.sent().length;
      const turnEvents = events.slice(before).filter((event) => event.turnId === outcome.turnId);
      const context = `turn ${turn} (${sessionId}): ${outcome.kind} after ${sent} requests`;
      expect(
        turnEvents.filter((event) => event.type === 'turn-end'),
        context,
      ).toHaveLength(1);
      expect(sent, context).toBeLessThanOrEqual(harness.orchestrator.requestCeiling);
      const read = await harness.storage.read(sessionId);
      expect(read.issues, context).toEqual([]);
      expect(trailingOrphans(read.entries), context).toEqual([]);
      expect(
        read.entries.some(
          (entry) => entry.type === 'message' && entry.messageId === outcome.messageId,
        ),
        context,
      ).toBe(true);
      expect(untruthfulDecisions(outcome.attempts, outcome.kind), context).toEqual([]);
      kinds.set(outcome.kind, (kinds.get(outcome.kind) ?? 0) + 1);
    }
    // The faults reached every ending.
    expect([...kinds.keys()].sort()).toEqual(['error', 'reply', 'resend']);
  });
});
