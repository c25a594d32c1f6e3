import type { TurnEvent } from '@keel/spec';
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, keyOf } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };

describe('a turn decides from the error kind, with exact request counts', () => {
  it('a reset then OK: two requests, one retry_same, one reply', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'reset-before-headers' }, match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({
      kind: 'reply',
      model: 'anthropic/primary',
      provider: 'anthropic',
    });
    expect(outcome.text).toContain('hello');
    expect(harness.sent()).toEqual([
      { model: 'primary', apiKey: keyOf({ providerId: 'anthropic', profileId: 'k1' }) },
      { model: 'primary', apiKey: keyOf({ providerId: 'anthropic', profileId: 'k1' }) },
    ]);
    expect(harness.decisions()).toEqual(['retry_same']);
    expect(
      outcome.attempts.map((attempt) => [attempt.outcome, attempt.errorKind, attempt.decision]),
    ).toEqual([
      ['error', 'connection', 'retry_same'],
      ['ok', undefined, undefined],
    ]);
  });

  it('every profile overloaded with a fallback: exactly 2 primary requests on distinct keys, then the fallback', async () => {
    harness = await createHarness({
      script: [1, 2, 3].map(() => ({ behavior: mockFaults.overloaded(), match: primary })),
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
    expect(harness.sent()).toEqual([
      { model: 'primary', apiKey: 'key-anthropic-k1' },
      { model: 'primary', apiKey: 'key-anthropic-k2' },
      { model: 'fallback', apiKey: 'key-backup-b1' },
    ]);
    const decisions = harness.events.filter(
      (event): event is Extract<TurnEvent, { type: 'decision' }> => event.type === 'decision',
    );
    expect(decisions.map((event) => [event.label, event.to?.profileId, event.to?.model])).toEqual([
      ['rotate_profile', 'k2', 'primary'],
      ['fallback_model', 'b1', 'fallback'],
    ]);
    // One turn's two overloaded answers are not evidence enough to open the model's breaker.
    const snapshot = await harness.orchestrator.health.snapshot();
    expect(snapshot.breakers.filter((breaker) => breaker.state !== 'closed')).toEqual([]);
  });

  it('a 429 with retry-after cools that profile on the clock and the next profile answers', async () => {
    harness = await createHarness({
      script: [
        {
          behavior: mockFaults.rateLimited({ retryAfterSeconds: 5 }),
          match: { ...primary, apiKey: 'key-anthropic-k1' },
        },
      ],
    });
    const first = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    expect(first.kind).toBe('reply');
    expect(harness.sent().map((request) => request.apiKey)).toEqual([
      'key-anthropic-k1',
      'key-anthropic-k2',
    ]);
    expect(harness.decisions()).toEqual(['rotate_profile']);
    // Still cooling: the next turn skips k1 without a request.
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'two' });
    expect(
      harness
        .sent()
        .map((request) => request.apiKey)
        .slice(2),
    ).toEqual(['key-anthropic-k2']);
    // Five seconds later k1 is back first in line.
    harness.clock.advance(5_000);
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'three' });
    expect(
      harness
        .sent()
        .map((request) => request.apiKey)
        .slice(3),
    ).toEqual(['key-anthropic-k1']);
    expect(harness.clock.sleeps).toEqual([]);
  });

  it('every profile rate-limited with a long retry-after: falls back at once, without waiting', async () => {
    harness = await createHarness({
      script: [1, 2, 3].map(() => ({
        behavior: mockFaults.rateLimited({ retryAfterSeconds: 3600 }),
        match: primary,
      })),
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
    expect(harness.sent().map((request) => request.apiKey)).toEqual([
      'key-anthropic-k1',
      'key-anthropic-k2',
      'key-anthropic-k3',
      'key-backup-b1',
    ]);
    expect(harness.decisions()).toEqual(['rotate_profile', 'rotate_profile', 'fallback_model']);
    expect(harness.clock.sleeps).toEqual([]);
  });

  it('every profile rate-limited briefly and no fallback: waits the shortest cooldown, then answers', async () => {
    harness = await createHarness({
      models: { primary: 'anthropic/primary' },
      script: [1, 2, 3].map((n) => ({
        behavior: mockFaults.rateLimited({ retryAfterSeconds: n }),
        match: { ...primary, apiKey: `key-anthropic-k${n}` },
      })),
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    expect(harness.decisions()).toEqual(['rotate_profile', 'rotate_profile', 'wait']);
    expect(harness.clock.sleeps).toEqual([1_000]);
    expect(harness.sent().map((request) => request.apiKey)).toEqual([
      'key-anthropic-k1',
      'key-anthropic-k2',
      'key-anthropic-k3',
      'key-anthropic-k1',
    ]);
  });

  it('everything cooling longer than maxWaitMs: ends at once with the shortest wait as retryAfterMs', async () => {
    harness = await createHarness({
      models: { primary: 'anthropic/primary' },
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
      script: [{ behavior: mockFaults.rateLimited({ retryAfterSeconds: 30 }), match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'rate_limit', retryAfterMs: 30_000 });
    expect(outcome.text).not.toMatch(/rate_limit_error|429/);
    expect(harness.sent()).toHaveLength(1);
    expect(harness.clock.sleeps).toEqual([]);
  });

  it('model_not_found falls back; invalid_request ends the turn with safe copy', async () => {
    harness = await createHarness({
      script: [{ behavior: mockFaults.modelNotFound({ model: 'primary' }), match: primary }],
    });
    expect(await harness.orchestrator.runTurn({ sessionId: 's1', input: 'a' })).toMatchObject({
      kind: 'reply',
      model: 'backup/fallback',
    });
    expect(harness.decisions()).toEqual(['fallback_model']);
    harness.mock.enqueue({
      behavior: { type: 'http-error', status: 400, message: 'messages.0: secret internal detail' },
      match: primary,
    });
    const bad = await harness.orchestrator.runTurn({ sessionId: 's2', input: 'b' });
    expect(bad).toMatchObject({ kind: 'error', errorKind: 'invalid_request' });
    expect(bad.text).not.toContain('secret');
  });

  it('server errors retry once, then fall back (retry.maxRetries 0: straight to the fallback)', async () => {
    harness = await createHarness({
      overrides: { retry: { maxRetries: 0 } },
      script: [{ behavior: { type: 'http-error', status: 500 }, match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'x' });
    expect(outcome.model).toBe('backup/fallback');
    expect(harness.sent().map((request) => request.model)).toEqual(['primary', 'fallback']);
    expect(harness.decisions()).toEqual(['fallback_model']);
  });

  it('in-stream overload after text: the partial text is discarded, never stored', async () => {
    harness = await createHarness({
      script: [
        {
          behavior: { type: 'stream-error', afterChunks: 2, errorType: 'overloaded_error' },
          match: primary,
        },
        {
          behavior: { type: 'stream-error', afterChunks: 2, errorType: 'overloaded_error' },
          match: primary,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'x' });
    expect(outcome.model).toBe('backup/fallback');
    expect(harness.events.filter((event) => event.type === 'discard')).toHaveLength(2);
    const assistant = (await harness.entries('s1')).filter(
      (entry) => entry.type === 'message' && entry.role === 'assistant',
    );
    expect(assistant).toHaveLength(1);
    expect(assistant[0]).toMatchObject({ model: 'backup/fallback' });
  });
});
