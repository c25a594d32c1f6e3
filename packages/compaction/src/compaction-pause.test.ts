import { appendFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../test/compactor-harness';
import { sampleTranscript } from '../test/sample-transcript';

const setup = useHarness();

describe('pausing automatic compaction', () => {
  it('pauses after 3 consecutive automatic failures; manual still runs and resumes it', async () => {
    const h = await setup();
    h.mock.enqueue({
      behavior: { type: 'http-error', status: 401, errorType: 'authentication_error' },
      times: 3,
    });
    const compactor = h.compactor();
    for (let run = 0; run < 3; run += 1) {
      await h.compactError(compactor, { trigger: run === 1 ? 'overflow' : 'threshold' });
      expect(compactor.isPaused('s-1')).toBe(run === 2);
    }
    expect(h.events.filter((e) => e.type === 'compaction-paused')).toEqual([
      { type: 'compaction-paused', sessionId: 's-1', consecutiveFailures: 3 },
    ]);
    const paused = {
      status: 'skipped',
      reason: 'paused',
      detail:
        '3 consecutive automatic compactions failed; a manual compaction or resume() resumes automatic ones',
    };
    expect(await h.compact(compactor)).toEqual(paused);
    expect(await h.compact(compactor, { trigger: 'overflow' })).toEqual(paused);
    expect(h.mock.requests).toHaveLength(3);
    // another session is not affected
    expect(compactor.isPaused('s-2')).toBe(false);
    const manual = await h.compact(compactor, { trigger: 'manual' });
    expect(manual.status).toBe('compacted');
    expect(compactor.isPaused('s-1')).toBe(false);
    expect(h.events.at(-2)).toEqual({ type: 'compaction-resumed', sessionId: 's-1' });
  });

  it('counts only consecutive failures, and not manual ones', async () => {
    const h = await setup();
    const compactor = h.compactor();
    const fail = async (trigger: 'threshold' | 'manual') => {
      h.mock.enqueue({ type: 'http-error', status: 401, errorType: 'authentication_error' });
      await h.compactError(compactor, { trigger });
    };
    await fail('threshold');
    await fail('threshold');
    await fail('manual');
    expect(compactor.isPaused('s-1')).toBe(false);
    await fail('threshold');
    expect(compactor.isPaused('s-1')).toBe(true);
    compactor.resume('s-1');
    expect(compactor.isPaused('s-1')).toBe(false);
  });

  it('a success in between starts the count again', async () => {
    const h = await setup();
    const compactor = h.compactor({ maxConsecutiveFailures: 2 });
    h.mock.enqueue({ type: 'http-error', status: 401, errorType: 'authentication_error' });
    await h.compactError(compactor);
    await h.compacted(compactor, { trigger: 'overflow' });
    // the session grows past the threshold again
    const more = sampleTranscript().map((entry) => `${JSON.stringify(entry)}\n`);
    await appendFile(h.store.path, more.join(''));
    h.mock.enqueue({ type: 'http-error', status: 401, errorType: 'authentication_error' });
    await h.compactError(compactor);
    expect(compactor.isPaused('s-1')).toBe(false);
    expect(h.events.some((e) => e.type === 'compaction-paused')).toBe(false);
  });
});

describe('pausing with a shared failure count', () => {
  it('is per compactor by default: a new compactor starts at 0', async () => {
    const h = await setup();
    h.mock.enqueue({ type: 'http-error', status: 401, errorType: 'authentication_error' });
    const first = h.compactor({ maxConsecutiveFailures: 1 });
    await h.compactError(first);
    expect(first.isPaused('s-1')).toBe(true);
    expect(h.compactor({ maxConsecutiveFailures: 1 }).isPaused('s-1')).toBe(false);
  });

  it('outlives the compactor when failureCounts is shared (or persisted)', async () => {
    const h = await setup();
    const failureCounts = new Map<string, number>();
    h.mock.enqueue({
      behavior: { type: 'http-error', status: 401, errorType: 'authentication_error' },
      times: 3,
    });
    const first = h.compactor({ failureCounts });
    for (let run = 0; run < 3; run += 1) await h.compactError(first);
    expect(failureCounts.get('s-1')).toBe(3);
    const restarted = h.compactor({ failureCounts });
    expect(restarted.isPaused('s-1')).toBe(true);
    expect(await h.compact(restarted)).toMatchObject({ status: 'skipped', reason: 'paused' });
    expect(h.mock.requests).toHaveLength(3);
    restarted.resume('s-1');
    expect(failureCounts.has('s-1')).toBe(false);
    expect(first.isPaused('s-1')).toBe(false);
  });

  it('reads a count stored earlier, e.g. loaded from disk at start-up', async () => {
    const h = await setup();
    const compactor = h.compactor({ failureCounts: new Map([['s-1', 3]]) });
    expect(compactor.isPaused('s-1')).toBe(true);
    await h.compacted(compactor, { trigger: 'manual' });
    expect(compactor.isPaused('s-1')).toBe(false);
    expect(h.events.filter((e) => e.type === 'compaction-resumed')).toHaveLength(1);
  });
});

describe('when nothing needs doing', () => {
  it('skips below the threshold on threshold triggers but compacts on manual ones', async () => {
    const h = await setup();
    const compactor = h.compactor({
      contextWindowTokens: 100_000,
      reserveTokens: 1000,
      keepRecentTokens: 20,
      summaryMaxTokens: 400,
    });
    expect(await h.compact(compactor)).toEqual({
      status: 'skipped',
      reason: 'not-needed',
      detail: expect.stringMatching(
        /^\d+ tokens in context; compaction starts above 99000 \(contextWindowTokens − reserveTokens\)$/,
      ),
    });
    expect(h.mock.requests).toHaveLength(0);
    const manual = await h.compact(compactor, { trigger: 'manual' });
    expect(manual.status).toBe('compacted');
    // the compacted range is now summarized: what is left is within keepRecentTokens
    const detail = 'keepRecentTokens (20) covers all 2 messages in context (20 tokens)';
    expect(await h.compact(compactor, { trigger: 'manual' })).toEqual({
      status: 'skipped',
      reason: 'nothing-to-compact',
      detail,
    });
    expect(h.events.at(-1)).toEqual({
      type: 'compaction-skipped',
      sessionId: 's-1',
      trigger: 'manual',
      reason: 'nothing-to-compact',
      detail,
    });
  });
});

describe('without any producer', () => {
  it('fails with a CompactionError that says so, writing nothing', async () => {
    const h = await setup();
    const before = await h.bytes();
    const error = await h.compactError(h.compactor({ model: undefined }));
    expect(error.attempts.map((a) => a.reason)).toEqual([
      'no producer: configure model or providers',
    ]);
    expect((await h.bytes()).equals(before)).toBe(true);
  });
});
