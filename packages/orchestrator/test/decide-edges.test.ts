import type { HealthReport } from '@keel/spec';
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';
import { recordingHealth } from './recording-health';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const onlyPrimary = { primary: 'anthropic/primary' };
const twoKeys = [{ id: 'anthropic', profiles: [{ id: 'k1' }, { id: 'k2' }] }];
const decisions = (h: Harness, outcome: { attempts: Array<{ decision?: string }> }) => [
  outcome.attempts.map((attempt) => attempt.decision),
  h.clock.sleeps,
];

describe('the decision table at its edges', () => {
  it('auth on the only key of the only model: the attempt says final (nothing to rotate to), error auth', async () => {
    harness = await createHarness({
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
      models: onlyPrimary,
      script: [{ behavior: mockFaults.unauthorized(), match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'auth' });
    expect(decisions(harness, outcome)).toEqual([['final'], []]);
    expect(harness.sent()).toHaveLength(1);
  });

  it('a rate limit cooling exactly retry.maxWaitMs is waited for', async () => {
    harness = await createHarness({
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
      models: onlyPrimary,
      overrides: { retry: { maxWaitMs: 2_000 } },
      script: [{ behavior: mockFaults.rateLimited({ retryAfterSeconds: 2 }), match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    expect(decisions(harness, outcome)).toEqual([['wait', undefined], [2_000]]);
  });

  it('overload on both keys of the only model (no retry-after): it rests one backoff step, then its last key is tried again', async () => {
    harness = await createHarness({
      providers: twoKeys,
      models: onlyPrimary,
      script: [
        { behavior: mockFaults.overloaded(), match: primary },
        { behavior: mockFaults.overloaded(), match: primary },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    expect(harness.sent().map((request) => request.apiKey)).toEqual([
      'key-anthropic-k1',
      'key-anthropic-k2',
      'key-anthropic-k2',
    ]);
    expect(decisions(harness, outcome)).toEqual([['rotate_profile', 'wait', undefined], [375]]);
  });

  it('overload with a cooldown the classifier gives: the model is given up (not rested), the turn ends with that wait', async () => {
    harness = await createHarness({
      providers: twoKeys,
      models: onlyPrimary,
      overrides: {
        classify: () => ({ kind: 'overloaded', retryable: true, cooldownMs: 4_000 }),
      },
      script: [
        {
          behavior: { type: 'http-error', status: 500 },
          match: primary,
          times: Number.POSITIVE_INFINITY,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'overloaded', retryAfterMs: 4_000 });
    expect(harness.sent()).toHaveLength(2);
    expect(decisions(harness, outcome)).toEqual([['rotate_profile', 'final'], []]);
  });

  it('giving up on an overloaded model reports its retry-after to provider health', async () => {
    const reports: HealthReport[] = [];
    harness = await createHarness({
      providers: twoKeys,
      overrides: {
        health: recordingHealth(reports),
      },
      models: { primary: 'anthropic/primary', fallbacks: ['anthropic/fallback'] },
      script: [
        {
          behavior: { ...mockFaults.overloaded(), headers: { 'retry-after': '7' } },
          match: primary,
          times: 2,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'anthropic/fallback' });
    expect(reports.filter((report) => report.type === 'overloaded')).toEqual([
      {
        type: 'overloaded',
        target: { providerId: 'anthropic', profileId: 'k2', model: 'primary' },
        retryAfterMs: 7_000,
      },
    ]);
  });
});
