import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from './harness';

// Failover conduct (issue 18): silent routes, per-model settings, context windows, the chain.

let harness: Harness | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const quick = { firstTokenTimeoutMs: 4_000, stallTimeoutMs: 4_000, timeoutMs: 30_000 };

/**
 * The model call's clocks (the transport's watchdog: global setTimeout) on fake time, so a silent
 * route times out when the test says, after the request arrived, never because the machine is
 * slow (a real 4 s clock once ran out before the request was sent, under Stryker at load 9).
 * Only setTimeout/clearTimeout are faked: sockets, setImmediate and the fence's waits stay real.
 */
function fakeCallClocks(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
}

/** Once the `count`-th request has arrived, its first-token clock runs out (`ms` pass). */
async function silentAfter(h: Harness, count: number, ms: number): Promise<void> {
  await h.mock.waitForRequests(count);
  vi.advanceTimersByTime(ms);
}

/** Once the turn has streamed `deltas` text deltas and waits for the next chunk, `ms` pass. */
async function stalledAfter(h: Harness, deltas: number, ms: number): Promise<void> {
  const streamed = () =>
    h.events.filter((event) => event.type === 'model-event' && event.event.type === 'text-delta')
      .length >= deltas;
  await new Promise<void>((resolve) => {
    if (streamed()) return resolve();
    const off = h.orchestrator.subscribe(() => {
      if (!streamed()) return;
      off();
      resolve();
    });
  });
  // The stream asks for its next chunk (and starts the stall clock) once the event is handled.
  await new Promise((resolve) => setImmediate(resolve));
  vi.advanceTimersByTime(ms);
}
const models = (settings: Record<string, object>, fallbacks = ['backup/fallback']) => ({
  primary: 'anthropic/primary',
  fallbacks,
  settings,
});

describe('a silent route is not retried on the same model while another model is left', () => {
  it('no first token in time: exactly one primary request, then the fallback answers', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'hang' }, match: primary }],
      overrides: { callTimeouts: quick },
    });
    fakeCallClocks();
    const turn = harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    await silentAfter(harness, 1, quick.firstTokenTimeoutMs);
    const outcome = await turn;
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
    expect(harness.sent().map((request) => request.model)).toEqual(['primary', 'fallback']);
    expect(outcome.attempts.map((attempt) => [attempt.errorKind, attempt.decision])).toEqual([
      ['timeout', 'fallback_model'],
      [undefined, undefined],
    ]);
  });

  it('a stream that stalls after its first chunks: the same, one primary request', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'stall', afterChunks: 2 }, match: primary }],
      overrides: { callTimeouts: quick },
    });
    fakeCallClocks();
    const turn = harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    await stalledAfter(harness, 2, quick.stallTimeoutMs);
    const outcome = await turn;
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
    expect(harness.sent().map((request) => request.model)).toEqual(['primary', 'fallback']);
    expect(harness.decisions()).toEqual(['fallback_model']);
  });

  it('the only model left is retried on a timeout (retry.maxRetries), never more', async () => {
    harness = await createHarness({
      models: { primary: 'anthropic/primary' },
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
      script: [1, 2, 3].map(() => ({ behavior: { type: 'hang' as const }, match: primary })),
      overrides: { callTimeouts: quick },
    });
    fakeCallClocks();
    const turn = harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    await silentAfter(harness, 1, quick.firstTokenTimeoutMs);
    await silentAfter(harness, 2, quick.firstTokenTimeoutMs);
    const outcome = await turn;
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'timeout' });
    expect(harness.sent()).toHaveLength(2);
    expect(harness.decisions()).toEqual(['retry_same', 'final']);
  });

  it('a fast failure (reset before any byte, 500) keeps retry_same on the same model first', async () => {
    harness = await createHarness({
      script: [
        { behavior: { type: 'reset-before-headers' }, match: primary },
        { behavior: { type: 'http-error', status: 500 }, match: primary },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    expect(harness.sent().map((request) => request.model)).toEqual([
      'primary',
      'primary',
      'fallback',
    ]);
    expect(outcome.attempts.map((attempt) => attempt.decision)).toEqual([
      'retry_same',
      'fallback_model',
      undefined,
    ]);
  });

  it("a model's own firstTokenTimeoutMs wins over the turn-wide one", async () => {
    harness = await createHarness({
      models: models({ 'anthropic/primary': { firstTokenTimeoutMs: 4_000 } }),
      script: [{ behavior: { type: 'hang' }, match: primary }],
      // Turn-wide, the hang would be waited for far longer than the 4 s the test lets pass.
      overrides: { callTimeouts: { firstTokenTimeoutMs: 120_000, timeoutMs: 240_000 } },
    });
    fakeCallClocks();
    const turn = harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    await silentAfter(harness, 1, 4_000);
    const outcome = await turn;
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
  }, 30_000);

  it("a model's own stallTimeoutMs wins over the turn-wide one", async () => {
    harness = await createHarness({
      models: models({ 'anthropic/primary': { stallTimeoutMs: 4_000 } }),
      script: [{ behavior: { type: 'stall', afterChunks: 1 }, match: primary }],
      overrides: { callTimeouts: { stallTimeoutMs: 120_000, timeoutMs: 240_000 } },
    });
    fakeCallClocks();
    const turn = harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    await stalledAfter(harness, 1, 4_000);
    const outcome = await turn;
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
  }, 30_000);
});

describe('per-model settings', () => {
  it("maxOutputTokens is the model's max_tokens; other models keep the orchestrator's", async () => {
    harness = await createHarness({
      models: models({ 'backup/fallback': { maxOutputTokens: 77 } }),
      script: [{ behavior: mockFaults.modelNotFound(), match: primary }],
      overrides: { maxTokens: 500 },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    const bodies = harness.mock.requests.map(
      (request) => request.body as { max_tokens?: number; max_completion_tokens?: number },
    );
    expect(bodies.map((body) => body.max_tokens ?? body.max_completion_tokens)).toEqual([500, 77]);
  });

  it('refuses settings that cannot work, naming the model and field', async () => {
    await expect(
      createHarness({ models: models({ 'anthropic/primary': { stallTimeoutMs: -1 } }) }),
    ).rejects.toMatchObject({
      name: 'OrchestratorConfigError',
      path: 'models.settings.anthropic/primary.stallTimeoutMs',
    });
    await expect(
      createHarness({ models: models({ 'nowhere/model': { contextWindowTokens: 10 } }) }),
    ).rejects.toMatchObject({ name: 'OrchestratorConfigError' });
  });
});

describe('context overflow moves to a larger window when compaction cannot help', () => {
  const windows = {
    'anthropic/primary': { contextWindowTokens: 8_000 },
    'backup/small': { contextWindowTokens: 4_000 },
    'backup/fallback': { contextWindowTokens: 200_000 },
  };

  it('a one-message request (nothing to compact) is answered by the larger model; a smaller one is never asked', async () => {
    harness = await createHarness({
      models: models(windows, ['backup/small', 'backup/fallback']),
      script: [{ behavior: mockFaults.promptTooLong(), match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'huge' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
    expect(harness.sent().map((request) => request.model)).toEqual(['primary', 'fallback']);
    expect(outcome.attempts.map((attempt) => [attempt.errorKind, attempt.decision])).toEqual([
      ['context_overflow', 'fallback_model'],
      [undefined, undefined],
    ]);
  });

  it('with no larger window configured, the turn ends after one request (never the same request twice)', async () => {
    harness = await createHarness({
      models: models({ 'anthropic/primary': { contextWindowTokens: 8_000 } }, ['backup/small']),
      script: [{ behavior: mockFaults.promptTooLong(), match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'huge' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'context_overflow' });
    expect(harness.sent().map((request) => request.model)).toEqual(['primary']);
    expect(outcome.attempts.map((attempt) => attempt.decision)).toEqual(['final']);
  });

  it('a compaction that cannot help (nothing to compact) falls over to the larger model', async () => {
    harness = await createHarness({
      models: models(windows),
      script: [{ behavior: mockFaults.promptTooLong(), match: primary }],
      compactor: () => ({
        async compact() {
          return { status: 'skipped', reason: 'nothing-to-compact' } as never;
        },
      }),
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'huge' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
    expect(harness.sent().map((request) => request.model)).toEqual(['primary', 'fallback']);
    expect(harness.decisions()).toEqual(['compact_and_retry', 'fallback_model']);
    expect(outcome.attempts[0]?.decision).toBe('fallback_model');
  });
});

describe('usage', () => {
  it("each attempt's usage is recorded; the outcome and the turn's end entry carry the total", async () => {
    harness = await createHarness({
      script: [
        {
          behavior: {
            type: 'stream-error',
            afterChunks: 1,
            errorType: 'api_error',
          },
          match: primary,
        },
        {
          behavior: {
            type: 'ok',
            text: 'answer',
            usage: { inputTokens: 100, outputTokens: 7, cacheReadTokens: 60, cacheWriteTokens: 10 },
          },
          match: primary,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    expect(outcome.kind).toBe('reply');
    const answered = outcome.attempts.at(-1)?.usage;
    expect(answered).toMatchObject({ inputTokens: 100, outputTokens: 7 });
    const expected = outcome.attempts.reduce(
      (sum, attempt) => ({
        inputTokens: sum.inputTokens + (attempt.usage?.inputTokens ?? 0),
        outputTokens: sum.outputTokens + (attempt.usage?.outputTokens ?? 0),
      }),
      { inputTokens: 0, outputTokens: 0 },
    );
    expect(outcome.usage).toMatchObject(expected);
    const end = (await harness.entries('s1')).find(
      (entry) => entry.type === 'turn' && entry.phase === 'end',
    );
    expect(end).toMatchObject({ usage: outcome.usage });
  });
});

describe('skipped attempts carry the decision that explains the next target', () => {
  const target = (model: string, profileId = 'k1', providerId = 'anthropic') => ({
    providerId,
    profileId,
    model,
  });

  it('an open breaker: the skipped primary says fallback_model, with a decision event to the fallback', async () => {
    harness = await createHarness();
    await harness.orchestrator.health.report({
      type: 'overloaded',
      target: target('primary'),
      retryAfterMs: 25_000,
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
    expect(harness.sent().map((request) => request.model)).toEqual(['fallback']);
    expect(
      outcome.attempts.map((attempt) => [attempt.outcome, attempt.requestSent, attempt.decision]),
    ).toEqual([
      ['skipped', false, 'fallback_model'],
      ['ok', true, undefined],
    ]);
    const decision = harness.events.find((event) => event.type === 'decision');
    expect(decision).toMatchObject({
      label: 'fallback_model',
      from: { model: 'primary' },
      to: { model: 'fallback', profileId: 'b1' },
    });
  });

  it('a cooling profile: the skipped key says rotate_profile and the next key answers', async () => {
    harness = await createHarness();
    await harness.orchestrator.health.report({
      type: 'failure',
      target: target('primary'),
      kind: 'rate_limit',
      probe: false,
      retryAfterMs: 30_000,
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'anthropic/primary' });
    expect(harness.sent().map((request) => request.apiKey)).toEqual(['key-anthropic-k2']);
    expect(outcome.attempts.map((attempt) => [attempt.outcome, attempt.decision])).toEqual([
      ['skipped', 'rotate_profile'],
      ['ok', undefined],
    ]);
  });

  it('every candidate cooling past retry.maxWaitMs: error with retryAfterMs, no model named, the last skip says final', async () => {
    harness = await createHarness({
      providers: [
        { id: 'anthropic', profiles: [{ id: 'k1' }] },
        { id: 'backup', profiles: [{ id: 'b1' }] },
      ],
    });
    for (const cooling of [target('primary'), target('fallback', 'b1', 'backup')]) {
      await harness.orchestrator.health.report({
        type: 'failure',
        target: cooling,
        kind: 'rate_limit',
        probe: false,
        retryAfterMs: 45_000,
      });
    }
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'rate_limit', retryAfterMs: 45_000 });
    expect(outcome.model).toBeUndefined();
    expect(harness.sent()).toEqual([]);
    expect(outcome.attempts.map((attempt) => [attempt.outcome, attempt.decision])).toEqual([
      ['skipped', 'fallback_model'],
      ['skipped', 'final'],
    ]);
  });
});

describe('a model given up on a transient fault rests for the pass, then may be tried again', () => {
  it('the primary resets twice, the fallback is overloaded: one backoff wait, then the primary answers', async () => {
    harness = await createHarness({
      providers: [
        { id: 'anthropic', profiles: [{ id: 'k1' }] },
        { id: 'backup', profiles: [{ id: 'b1' }] },
      ],
      script: [
        { behavior: { type: 'reset-before-headers' }, match: primary },
        { behavior: { type: 'reset-before-headers' }, match: primary },
        { behavior: mockFaults.overloaded(), match: { model: 'fallback' } },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'anthropic/primary' });
    expect(harness.sent().map((request) => request.model)).toEqual([
      'primary',
      'primary',
      'fallback',
      'primary',
    ]);
    expect(outcome.attempts.map((attempt) => attempt.decision)).toEqual([
      'retry_same',
      'fallback_model',
      'wait',
      undefined,
    ]);
  });

  it('a silent model is not waited for again, and the waits are bounded by retry.maxWaits', async () => {
    harness = await createHarness({
      providers: [
        { id: 'anthropic', profiles: [{ id: 'k1' }] },
        { id: 'backup', profiles: [{ id: 'b1' }] },
      ],
      overrides: { callTimeouts: quick, retry: { maxRetries: 0, maxWaits: 1 } },
      script: [
        { behavior: { type: 'hang' }, match: primary },
        ...[1, 2, 3].map(() => ({
          behavior: mockFaults.serverError(503),
          match: { model: 'fallback' },
        })),
      ],
    });
    fakeCallClocks();
    const turn = harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    await silentAfter(harness, 1, quick.firstTokenTimeoutMs);
    const outcome = await turn;
    expect(outcome).toMatchObject({ kind: 'error' });
    // The hung primary once; the fallback, then once more after the one wait allowed.
    expect(harness.sent().map((request) => request.model)).toEqual([
      'primary',
      'fallback',
      'fallback',
    ]);
  });
});
