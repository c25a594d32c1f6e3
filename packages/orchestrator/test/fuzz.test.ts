import type { AttemptRecord, TranscriptEntry, TurnEvent, TurnOutcome } from '@keel/spec';
import { type MockBehavior, mockFaults } from '@keel/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trailingOrphans } from '../src/trailing-orphans';
import { createHarness, type Harness } from './harness';

/**
 * Property-based fuzz of whole turns (fast-check): random fault sequences on the real transports
 * against the strict mock provider, with fake time. A failure shrinks to the shortest fault
 * sequence that still breaks an invariant. KEEL_FUZZ_SEED / KEEL_FUZZ_RUNS change the seed and
 * the number of runs (CI uses the defaults: well within a minute).
 */
const SEED = Number(process.env['KEEL_FUZZ_SEED'] ?? 20261201);
const RUNS = Number(process.env['KEEL_FUZZ_RUNS'] ?? 40);

const lookup = { name: 'lookup', input: {} };

/** One provider answer: every fault kind the decision table knows, and tool calls. */
const behaviour: fc.Arbitrary<MockBehavior> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<MockBehavior>({ type: 'ok' }) },
  { weight: 3, arbitrary: fc.constant<MockBehavior>({ type: 'ok', toolCalls: [lookup] }) },
  {
    weight: 1,
    arbitrary: fc.constant<MockBehavior>({ type: 'ok', text: 'Looking.', toolCalls: [lookup] }),
  },
  { weight: 2, arbitrary: fc.constant<MockBehavior>({ type: 'reset-before-headers' }) },
  {
    weight: 3,
    arbitrary: fc
      .record({
        status: fc.constantFrom(500, 502, 503),
        retryAfter: fc.option(fc.constantFrom(1, 3, 20), { nil: undefined }),
      })
      .map(
        ({ status, retryAfter }): MockBehavior => ({
          type: 'http-error',
          status,
          ...(retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } }),
        }),
      ),
  },
  { weight: 3, arbitrary: fc.constant(mockFaults.overloaded()) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(1, 5, 30, 3600)
      .map((seconds) => mockFaults.rateLimited({ retryAfterSeconds: seconds })),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom<MockBehavior>(
      { type: 'stream-error', afterChunks: 1, errorType: 'overloaded_error' },
      { type: 'stream-error', afterChunks: 1, errorType: 'api_error' },
      { type: 'reset-after-chunks', chunks: 2 },
      { type: 'truncated-stream', chunks: 1 },
    ),
  },
  { weight: 1, arbitrary: fc.constant<MockBehavior>({ type: 'stall', afterChunks: 1 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      mockFaults.unauthorized(),
      mockFaults.billing(),
      mockFaults.modelNotFound(),
      { type: 'http-error', status: 400, message: 'bad request' } satisfies MockBehavior,
    ),
  },
);

interface TurnPlan {
  /** What the provider answers, request by request; the default reply once used up. */
  faults: MockBehavior[];
  /** Fake time that passes before the message (cooldowns and breakers end with it). */
  advanceMs: number;
  /** Another writer appends to the session while the first model call streams. */
  foreignWrite: boolean;
}

const turnPlan: fc.Arbitrary<TurnPlan> = fc.record({
  faults: fc.array(behaviour, { maxLength: 24 }),
  advanceMs: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 0, max: 60_000 }),
    fc.constant(20 * 60_000),
  ),
  foreignWrite: fc.boolean().map((flag) => flag && Math.random() < 0.5),
});

/** What one turn did, for the invariants and for the coverage checks after the runs. */
interface TurnRun {
  outcome: TurnOutcome;
  events: TurnEvent[];
  sent: number;
  refused: string[];
  entries: TranscriptEntry[];
  issues: unknown[];
}

/**
 * Where a turn's attempt records do not explain themselves: every attempt that did not answer
 * and is followed by another carries a decision, and a move label names the move that really
 * followed (same target, another profile of the model, another model); a reply's answering
 * attempt carries none.
 */
export function untruthfulDecisions(attempts: readonly AttemptRecord[], kind: string): string[] {
  const problems: string[] = [];
  const model = (attempt: AttemptRecord) => `${attempt.target.providerId}/${attempt.target.model}`;
  attempts.forEach((attempt, index) => {
    const next = attempts[index + 1];
    const where = `attempt ${attempt.attempt} (${attempt.outcome}, ${attempt.decision})`;
    if (next === undefined) {
      if (kind === 'reply' && (attempt.outcome !== 'ok' || attempt.decision !== undefined))
        problems.push(`${where} ends a reply`);
      if (kind !== 'reply' && attempt.outcome !== 'ok' && attempt.decision === undefined)
        problems.push(`${where} ends the turn without a decision`);
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

/** Every invariant of one turn; throws (with the turn's story) on the first broken one. */
function checkTurn(run: TurnRun, ceiling: number, message: string): void {
  const { outcome } = run;
  const context = `${message}: ${outcome.kind} after ${run.sent} requests, attempts ${JSON.stringify(
    outcome.attempts.map((a) => [a.target.profileId, a.outcome, a.errorKind, a.decision]),
  )}`;
  expect(
    run.events.filter((event) => event.type === 'turn-end'),
    context,
  ).toHaveLength(1);
  expect(run.sent, context).toBeLessThanOrEqual(ceiling);
  // The ceiling is the true bound, never a cut: no fault sequence makes its check end a turn.
  expect(
    run.events.filter((event) => event.type === 'decision' && event.reason === 'request_ceiling'),
    `${context}: the request ceiling cut the turn`,
  ).toEqual([]);
  expect(run.refused, `${context}: a request with an unpaired tool block`).toEqual([]);
  expect(run.issues, `${context}: the transcript does not parse`).toEqual([]);
  expect(trailingOrphans(run.entries), context).toEqual([]);
  expect(
    run.entries.some((entry) => entry.type === 'message' && entry.messageId === outcome.messageId),
    `${context}: the user message is gone`,
  ).toBe(true);
  expect(untruthfulDecisions(outcome.attempts, outcome.kind), context).toEqual([]);
  // Every request the provider saw is an attempt on record (a call cut off by a timeout may be
  // on record without the provider having read it).
  const sentByRecords = outcome.attempts.filter((attempt) => attempt.requestSent).length;
  expect(run.sent, `${context}: requests no attempt records`).toBeLessThanOrEqual(sentByRecords);
}

/** A fresh orchestrator (so that runs are independent and shrink cleanly) that plays `turns`. */
async function play(
  turns: readonly TurnPlan[],
  overrides: { maxSteps: number },
): Promise<{ runs: TurnRun[]; ceiling: number }> {
  let foreignWrite = false;
  let foreignCount = 0;
  const harness: Harness = await createHarness({
    tools: {
      definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
      async run() {
        return { content: 'result' };
      },
    },
    overrides: {
      maxSteps: overrides.maxSteps,
      // No behaviour here is silent before its first chunk: a loaded machine never trips that limit.
      callTimeouts: { firstTokenTimeoutMs: 10_000, stallTimeoutMs: 500, timeoutMs: 20_000 },
    },
    beforeStreamEnds: async () => {
      if (!foreignWrite) return;
      foreignWrite = false;
      foreignCount += 1;
      const id = `foreign-${foreignCount}`;
      await harness.storage.append('s1', [
        {
          type: 'message',
          id,
          messageId: id,
          timestamp: new Date(harness.clock.now()).toISOString(),
          role: 'assistant',
          content: [{ type: 'text', text: 'another writer' }],
        },
      ]);
    },
  });
  try {
    const runs: TurnRun[] = [];
    for (const [index, turn] of turns.entries()) {
      harness.clock.advance(turn.advanceMs);
      harness.mock.reset();
      harness.mock.enqueue(...turn.faults);
      foreignWrite = turn.foreignWrite;
      const before = harness.events.length;
      const outcome = await harness.orchestrator.runTurn({
        sessionId: 's1',
        input: `message ${index}`,
      });
      const read = await harness.storage.read('s1');
      runs.push({
        outcome,
        events: harness.events.slice(before).filter((event) => event.turnId === outcome.turnId),
        sent: harness.sent().length,
        refused: harness.refused(),
        entries: read.entries,
        issues: read.issues,
      });
    }
    return { runs, ceiling: harness.orchestrator.requestCeiling };
  } finally {
    await harness.close();
  }
}

const seen = { kinds: new Set<string>(), stepCap: 0, ceilingGap: Number.POSITIVE_INFINITY };

describe(`fuzz properties (seed ${SEED}, ${RUNS} runs; KEEL_FUZZ_SEED / KEEL_FUZZ_RUNS)`, () => {
  it('every turn ends exactly once, within its request ceiling, with truthful decisions, no unpaired tool block ever sent, a parseable transcript with no trailing orphan and its user message', {
    timeout: 120_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(turnPlan, { minLength: 1, maxLength: 3 }), async (turns) => {
        const { runs, ceiling } = await play(turns, { maxSteps: 3 });
        runs.forEach((run, index) => {
          checkTurn(run, ceiling, `turn ${index}`);
          seen.kinds.add(run.outcome.kind);
          if (run.events.some((e) => e.type === 'decision' && e.reason === 'step_cap'))
            seen.stepCap += 1;
          seen.ceilingGap = Math.min(seen.ceilingGap, ceiling - run.sent);
        });
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The faults reached every ending, and tool loops reached the step cap.
    expect([...seen.kinds].sort()).toEqual(['error', 'reply', 'resend']);
    expect(seen.stepCap).toBeGreaterThan(0);
  });

  it('profiles recover on fake time: after any faults, once every cooldown has passed, a clean turn answers on the primary’s first key with one request', {
    timeout: 120_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(behaviour, { maxLength: 24 }), async (faults) => {
        const turns: TurnPlan[] = [
          { faults, advanceMs: 0, foreignWrite: false },
          // Past every cooldown (auth and billing: 15 min; retry-after: at most an hour) and breaker.
          { faults: [], advanceMs: 61 * 60_000, foreignWrite: false },
        ];
        const { runs } = await play(turns, { maxSteps: 3 });
        const clean = runs[1]!;
        expect(clean.outcome.kind).toBe('reply');
        expect(clean.sent).toBe(1);
        expect(
          clean.outcome.attempts.map((attempt) => [
            attempt.target.model,
            attempt.target.profileId,
            attempt.outcome,
          ]),
        ).toEqual([['primary', 'k1', 'ok']]);
      }),
      { seed: SEED + 1, numRuns: Math.max(10, Math.floor(RUNS / 2)) },
    );
  });
});
