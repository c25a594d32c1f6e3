import type { AttemptRecord } from '@keel/spec';
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const onlyPrimary = { primary: 'anthropic/primary' };
const oneKey = [{ id: 'anthropic', profiles: [{ id: 'k1' }] }];
const keys = (h: Harness) => h.sent().map((request) => `${request.model}:${request.apiKey}`);
const moves = (attempts: readonly AttemptRecord[]) =>
  attempts.map((attempt) => `${attempt.target.profileId}:${attempt.outcome}:${attempt.decision}`);

describe('retry-after on transient errors', () => {
  it('a 500 with retry-after: 3 is retried on the same target after exactly 3 s, not the backoff', async () => {
    harness = await createHarness({
      script: [
        {
          behavior: { type: 'http-error', status: 500, headers: { 'retry-after': '3' } },
          match: primary,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    expect(keys(harness)).toEqual(['primary:key-anthropic-k1', 'primary:key-anthropic-k1']);
    expect(harness.clock.sleeps).toEqual([3_000]);
    expect(moves(outcome.attempts)).toEqual(['k1:error:retry_same', 'k1:ok:undefined']);
  });

  it('without retry-after the same fault waits the jittered backoff (500 ms base, random 0.5: 375 ms)', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'http-error', status: 500 }, match: primary }],
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(harness.clock.sleeps).toEqual([375]);
  });

  it('a retry-after longer than retry.maxWaitMs is not waited for: the fallback answers at once', async () => {
    harness = await createHarness({
      overrides: { retry: { maxWaitMs: 10_000 } },
      script: [
        {
          behavior: { type: 'http-error', status: 500, headers: { 'retry-after': '11' } },
          match: primary,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
    expect(keys(harness)).toEqual(['primary:key-anthropic-k1', 'fallback:key-backup-b1']);
    expect(harness.clock.sleeps).toEqual([]);
    expect(harness.decisions()).toEqual(['fallback_model']);
  });

  it('a retry-after exactly retry.maxWaitMs is still waited for', async () => {
    harness = await createHarness({
      overrides: { retry: { maxWaitMs: 10_000 } },
      script: [
        {
          behavior: { type: 'http-error', status: 500, headers: { 'retry-after': '10' } },
          match: primary,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.model).toBe('anthropic/primary');
    expect(harness.clock.sleeps).toEqual([10_000]);
  });
});

describe('retry.maxWaits bounds the waits of one turn', () => {
  const rateLimitedForever = {
    behavior: mockFaults.rateLimited({ retryAfterSeconds: 2 }),
    match: primary,
    times: Number.POSITIVE_INFINITY,
  };
  for (const maxWaits of [0, 1, 3]) {
    it(`one key rate-limited on every request, maxWaits ${maxWaits}: ${maxWaits} waits of 2 s, ${maxWaits + 1} requests, then error with retryAfterMs`, async () => {
      harness = await createHarness({
        providers: oneKey,
        models: onlyPrimary,
        overrides: { retry: { maxWaits } },
        script: [rateLimitedForever],
      });
      const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
      expect(outcome).toMatchObject({
        kind: 'error',
        errorKind: 'rate_limit',
        retryAfterMs: 2_000,
      });
      expect(harness.sent()).toHaveLength(maxWaits + 1);
      expect(harness.clock.sleeps).toEqual(Array.from({ length: maxWaits }, () => 2_000));
      expect(outcome.attempts.map((attempt) => attempt.decision)).toEqual([
        ...Array.from({ length: maxWaits }, () => 'wait'),
        'final',
      ]);
    });
  }

  it('a model resting after server errors is waited for at most maxWaits times (2): 3 requests', async () => {
    harness = await createHarness({
      providers: oneKey,
      models: onlyPrimary,
      overrides: { retry: { maxWaits: 2, maxRetries: 0 } },
      script: [
        {
          behavior: { type: 'http-error', status: 500, headers: { 'retry-after': '1' } },
          match: primary,
          times: Number.POSITIVE_INFINITY,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'server_error' });
    expect(harness.sent()).toHaveLength(3);
    expect(harness.clock.sleeps).toEqual([1_000, 1_000]);
  });
});

describe('auth and billing rotate to the next profile, then fall back', () => {
  it('a 401 on k1: rotate_profile to k2; k1 cools for 15 min (skipped without a request), then is first again', async () => {
    harness = await createHarness({
      script: [
        {
          behavior: mockFaults.unauthorized(),
          match: { ...primary, apiKey: 'key-anthropic-k1' },
        },
      ],
    });
    const first = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    expect(first).toMatchObject({ kind: 'reply', model: 'anthropic/primary' });
    expect(keys(harness)).toEqual(['primary:key-anthropic-k1', 'primary:key-anthropic-k2']);
    expect(moves(first.attempts)).toEqual(['k1:error:rotate_profile', 'k2:ok:undefined']);
    expect(first.attempts[0]?.errorKind).toBe('auth');

    harness.clock.advance(15 * 60_000 - 1);
    const second = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'two' });
    expect(keys(harness).slice(2)).toEqual(['primary:key-anthropic-k2']);
    expect(moves(second.attempts)).toEqual(['k1:skipped:rotate_profile', 'k2:ok:undefined']);

    harness.clock.advance(1);
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'three' });
    expect(keys(harness).slice(3)).toEqual(['primary:key-anthropic-k1']);
    expect(harness.clock.sleeps).toEqual([]);
  });

  it('billing on every key of the primary: each key once, then the fallback, never a wait', async () => {
    harness = await createHarness({
      script: [{ behavior: mockFaults.billing(), match: primary, times: Number.POSITIVE_INFINITY }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
    expect(keys(harness)).toEqual([
      'primary:key-anthropic-k1',
      'primary:key-anthropic-k2',
      'primary:key-anthropic-k3',
      'fallback:key-backup-b1',
    ]);
    expect(moves(outcome.attempts)).toEqual([
      'k1:error:rotate_profile',
      'k2:error:rotate_profile',
      'k3:error:fallback_model',
      'b1:ok:undefined',
    ]);
    expect(outcome.attempts.slice(0, 3).map((attempt) => attempt.errorKind)).toEqual([
      'billing',
      'billing',
      'billing',
    ]);
    expect(harness.clock.sleeps).toEqual([]);
  });

  it('an OpenAI-wire insufficient_quota (429) is billing, not a rate limit: no wait, the key is not retried', async () => {
    harness = await createHarness({
      providers: [
        { id: 'anthropic', profiles: [{ id: 'k1' }] },
        { id: 'backup', profiles: [{ id: 'b1' }, { id: 'b2' }] },
      ],
      models: { primary: 'backup/fallback' },
      script: [
        {
          behavior: mockFaults.billing(),
          match: { model: 'fallback', apiKey: 'key-backup-b1' },
          times: Number.POSITIVE_INFINITY,
        },
      ],
    });
    const first = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    expect(first.kind).toBe('reply');
    expect(first.attempts[0]?.errorKind).toBe('billing');
    expect(keys(harness)).toEqual(['fallback:key-backup-b1', 'fallback:key-backup-b2']);
    harness.clock.advance(60_000);
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'two' });
    expect(keys(harness).slice(2)).toEqual(['fallback:key-backup-b2']);
  });
});
