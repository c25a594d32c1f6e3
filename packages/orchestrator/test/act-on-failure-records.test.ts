import { userMessage } from '@keel/error-classification';
import type { TurnEvent } from '@keel/spec';
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TURN_COPY } from '../src/turn-copy';
import { createHarness, type Harness } from './harness';

/**
 * What a failed attempt leaves on record (the Stryker survivors of act-on-failure): the
 * attempt-error event's fields, each decision event's target and wait, the compaction path when
 * there is no compactor or it cannot help, and the copy of a final error.
 */
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const oneKey = [{ id: 'anthropic', profiles: [{ id: 'k1' }] }];
const k1 = { providerId: 'anthropic', profileId: 'k1', model: 'primary' };

const ofType = <T extends TurnEvent['type']>(h: Harness, type: T) =>
  h.events.filter((event): event is Extract<TurnEvent, { type: T }> => event.type === type);

/** A compactor that never manages to compact (the transcript has nothing to give). */
const unableCompactor = () => ({
  async compact() {
    return { status: 'skipped' as const, reason: 'nothing-to-compact' as const };
  },
});

describe('the attempt-error event', () => {
  it('carries the status, the retry-after and the provider’s message', async () => {
    harness = await createHarness({
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }, { id: 'k2' }] }],
      models: { primary: 'anthropic/primary' },
      script: [{ behavior: mockFaults.rateLimited({ retryAfterSeconds: 2 }), match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    const [error] = ofType(harness, 'attempt-error');
    expect(error).toMatchObject({ kind: 'rate_limit', status: 429, retryAfterMs: 2_000 });
    expect(error?.message).toEqual(expect.stringMatching(/\w/));
    // Nothing streamed before the error: nothing to discard.
    expect(ofType(harness, 'discard')).toEqual([]);
  });
});

describe('decision events name their target and wait', () => {
  it('retry_same: to the same target, after the retry-after', async () => {
    harness = await createHarness({
      providers: oneKey,
      models: { primary: 'anthropic/primary' },
      script: [
        {
          behavior: { type: 'http-error', status: 500, headers: { 'retry-after': '3' } },
          match: primary,
        },
      ],
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(ofType(harness, 'decision')).toEqual([
      expect.objectContaining({ label: 'retry_same', from: k1, to: k1, delayMs: 3_000 }),
    ]);
  });

  it('wait: the time it waits', async () => {
    harness = await createHarness({
      providers: oneKey,
      models: { primary: 'anthropic/primary' },
      script: [{ behavior: mockFaults.rateLimited({ retryAfterSeconds: 2 }), match: primary }],
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(ofType(harness, 'decision')).toEqual([
      expect.objectContaining({ label: 'wait', delayMs: 2_000 }),
    ]);
  });
});

describe('an overflow that compaction cannot fix', () => {
  it('without a compactor: no compact_and_retry at all, the only model is final', async () => {
    harness = await createHarness({
      providers: oneKey,
      models: { primary: 'anthropic/primary' },
      script: [{ behavior: mockFaults.promptTooLong(), match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'context_overflow' });
    expect(ofType(harness, 'decision').map((event) => event.label)).toEqual(['final']);
  });

  it('a compactor that cannot compact, on the only model: compact_and_retry (to it), then final with the compaction copy', async () => {
    harness = await createHarness({
      providers: oneKey,
      models: { primary: 'anthropic/primary' },
      compactor: unableCompactor,
      script: [{ behavior: mockFaults.promptTooLong(), match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({
      kind: 'error',
      errorKind: 'context_overflow',
      text: DEFAULT_TURN_COPY.compactionFailed,
    });
    expect(ofType(harness, 'decision')).toEqual([
      expect.objectContaining({ label: 'compact_and_retry', from: k1, to: k1 }),
      expect.objectContaining({ label: 'final' }),
    ]);
    expect(harness.sent()).toHaveLength(1);
  });

  it('a compactor that cannot compact, with a larger model left: fallback_model to it', async () => {
    harness = await createHarness({
      providers: [
        { id: 'anthropic', profiles: [{ id: 'k1' }] },
        { id: 'backup', profiles: [{ id: 'b1' }] },
      ],
      models: {
        primary: 'anthropic/primary',
        fallbacks: ['backup/fallback'],
        settings: {
          'anthropic/primary': { contextWindowTokens: 100_000 },
          'backup/fallback': { contextWindowTokens: 400_000 },
        },
      },
      compactor: unableCompactor,
      script: [{ behavior: mockFaults.promptTooLong(), match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
    const b1 = { providerId: 'backup', profileId: 'b1', model: 'fallback' };
    expect(ofType(harness, 'decision')).toEqual([
      expect.objectContaining({ label: 'compact_and_retry', to: k1 }),
      expect.objectContaining({ label: 'fallback_model', from: k1, to: b1 }),
    ]);
  });
});

describe('the copy of a final error', () => {
  it('is the kind’s message, not the reply-too-large copy', async () => {
    harness = await createHarness({
      providers: oneKey,
      models: { primary: 'anthropic/primary' },
      script: [
        { behavior: { type: 'http-error', status: 400, message: 'bad request' }, match: primary },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({
      kind: 'error',
      errorKind: 'invalid_request',
      text: userMessage({ kind: 'invalid_request' }),
    });
    expect(outcome.text).not.toBe(DEFAULT_TURN_COPY.replyTooLarge);
  });
});
