import type { ModelTarget, TurnEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createRateWindow } from './create-rate-window';

const target: ModelTarget = { providerId: 'p', profileId: 'a', model: 'm' };
const start = (at: number): TurnEvent => ({
  sessionId: 's',
  turnId: 't',
  at,
  type: 'attempt-start',
  attempt: 1,
  target,
  probe: false,
});

describe('createRateWindow', () => {
  it('puts each event in the bucket of its time and reads every bucket of the window, empty ones too', () => {
    const rates = createRateWindow({ bucketMs: 1000 });
    rates.observe(start(10_100));
    rates.observe(start(10_900));
    rates.observe(start(12_000));
    rates.observe({
      ...start(12_500),
      type: 'decision',
      label: 'rotate_profile',
      from: target,
      reason: 'overloaded',
    });
    const read = rates.read({ sinceMs: 4000, now: 13_200 });
    expect(read).toMatchObject({ bucketMs: 1000, from: 10_000, to: 14_000 });
    expect(read.buckets.map((bucket) => [bucket.start, bucket.requests])).toEqual([
      [10_000, 2],
      [11_000, 0],
      [12_000, 1],
      [13_000, 0],
    ]);
    // Only `fallback_model` counts as a fallback: a rotation is not one.
    expect(read.providers).toEqual([
      { providerId: 'p', requests: 3, errors: 0, fallbacks: 0, errorKinds: {} },
    ]);
  });

  it('forgets what is older than keepMs', () => {
    const rates = createRateWindow({ bucketMs: 1000, keepMs: 5000 });
    rates.observe(start(1000));
    rates.observe(start(20_000));
    const read = rates.read({ sinceMs: 60_000, now: 20_500 });
    expect(read.buckets.reduce((sum, bucket) => sum + bucket.requests, 0)).toBe(1);
  });

  it('counts a turn that failed with every attempt skipped as an error, once, in the total only', () => {
    const rates = createRateWindow({ bucketMs: 1000 });
    const skipped = (attempt: number) => ({
      attempt,
      target,
      startedAt: 2000,
      endedAt: 2000,
      requestSent: false,
      probe: false,
      outcome: 'skipped' as const,
      retryAfterMs: 9000,
    });
    const ended = (kind: 'error' | 'reply', attempts: ReturnType<typeof skipped>[]): TurnEvent => ({
      sessionId: 's',
      turnId: 't',
      at: 2100,
      type: 'turn-end',
      outcome: { kind, text: '', messageId: 'm', turnId: 't', retryAfterMs: 9000, attempts },
    });
    rates.observe(ended('error', [skipped(1), skipped(2)]));
    // A turn that sent requests has its failed attempts counted already; one with none, nothing.
    rates.observe(ended('error', []));
    rates.observe(ended('reply', [skipped(1)]));
    const read = rates.read({ sinceMs: 1000, now: 2500 });
    expect(read.buckets).toEqual([{ start: 2000, requests: 0, errors: 1, fallbacks: 0 }]);
    expect(read.providers).toEqual([]);
  });
});
