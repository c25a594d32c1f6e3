import { afterEach, describe, expect, it } from 'vitest';
import { CompactionError } from './compaction-error';
import { createCompactor, HOOK_PRODUCER_ID } from './create-compactor';
import { BUILTIN_PRODUCER_ID } from './model-summarizer';
import { SUMMARY_SECTIONS } from './summary-sections';
import type { Harness } from './test-support/compactor-harness';
import { createHarness } from './test-support/compactor-harness';
import { SMALL_WINDOW, sampleTranscript } from './test-support/sample-transcript';
import { createAnthropicPort } from './test-support/sdk-model-ports';

const fastRetry = { baseDelayMs: 1, maxDelayMs: 4 };
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function setup(): Promise<Harness> {
  harness = await createHarness(sampleTranscript());
  return harness;
}

const signal = (): AbortSignal => new AbortController().signal;

describe('beforeCompact', () => {
  it('can cancel: nothing is called, nothing is written', async () => {
    const h = await setup();
    const before = await h.bytes();
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl }),
      hooks: { beforeCompact: () => ({ action: 'cancel', reason: 'not now' }) },
      onEvent: h.onEvent,
    });
    const result = await compactor.compact({ sessionId: 's-1', store: h.store, signal: signal() });
    expect(result).toEqual({ status: 'skipped', reason: 'cancelled' });
    expect(h.mock.requests).toHaveLength(0);
    expect((await h.bytes()).equals(before)).toBe(true);
    expect(h.events.at(-1)).toEqual({
      type: 'compaction-skipped',
      sessionId: 's-1',
      trigger: 'threshold',
      reason: 'cancelled',
    });
  });

  it('can supply a summary, which is validated and committed under the hook producer id', async () => {
    const h = await setup();
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl }),
      hooks: {
        beforeCompact: (context) => ({
          action: 'supply',
          summary: SUMMARY_SECTIONS.map(
            (s) => `## ${s}\n${context.requiredIdentifiers.join(' ')}`,
          ).join('\n'),
        }),
      },
    });
    const result = await compactor.compact({ sessionId: 's-1', store: h.store, signal: signal() });
    expect(result.status === 'compacted' && result.entry.provenance.producerId).toBe(
      HOOK_PRODUCER_ID,
    );
    expect(h.mock.requests).toHaveLength(0);
  });

  it('has a supplied placeholder rejected, and the producers run instead', async () => {
    const h = await setup();
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl }),
      hooks: { beforeCompact: () => ({ action: 'supply', summary: 'Summary unavailable.' }) },
      onEvent: h.onEvent,
    });
    const result = await compactor.compact({ sessionId: 's-1', store: h.store, signal: signal() });
    expect(result.status === 'compacted' && result.entry.provenance.producerId).toBe(
      BUILTIN_PRODUCER_ID,
    );
    expect(h.mock.requests).toHaveLength(1);
    const end = h.events.at(-1);
    expect(end?.type === 'compaction-end' && end.attempts[0]).toMatchObject({
      producerId: HOOK_PRODUCER_ID,
      reason: expect.stringContaining('missing sections: Goal'),
    });
  });

  it('afterCompact observes the committed entry, and its throw does not undo the commit', async () => {
    const h = await setup();
    const observed: string[] = [];
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl }),
      hooks: {
        afterCompact: (context) => {
          observed.push(context.entry.id);
          throw new Error('observer bug');
        },
      },
      createId: () => 'compaction-1',
    });
    const result = await compactor.compact({ sessionId: 's-1', store: h.store, signal: signal() });
    expect(result.status).toBe('compacted');
    expect(observed).toEqual(['compaction-1']);
    expect(h.store.appendCount()).toBe(1);
  });
});

describe('pausing automatic compaction', () => {
  it('pauses after 3 consecutive automatic failures; manual still runs and resumes it', async () => {
    const h = await setup();
    h.mock.enqueue({
      behavior: { type: 'http-error', status: 401, errorType: 'authentication_error' },
      times: 3,
    });
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      retry: fastRetry,
      model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl }),
      onEvent: h.onEvent,
    });
    for (let run = 0; run < 3; run += 1) {
      const error = await compactor
        .compact({
          sessionId: 's-1',
          store: h.store,
          trigger: run === 1 ? 'overflow' : 'threshold',
          signal: signal(),
        })
        .catch((caught: unknown) => caught);
      expect(CompactionError.isInstance(error)).toBe(true);
      expect(compactor.isPaused('s-1')).toBe(run === 2);
    }
    expect(h.events.filter((e) => e.type === 'compaction-paused')).toEqual([
      { type: 'compaction-paused', sessionId: 's-1', consecutiveFailures: 3 },
    ]);
    expect(await compactor.compact({ sessionId: 's-1', store: h.store, signal: signal() })).toEqual(
      {
        status: 'skipped',
        reason: 'paused',
      },
    );
    expect(h.mock.requests).toHaveLength(3);
    // another session is not affected
    expect(compactor.isPaused('s-2')).toBe(false);
    const manual = await compactor.compact({
      sessionId: 's-1',
      store: h.store,
      trigger: 'manual',
      signal: signal(),
    });
    expect(manual.status).toBe('compacted');
    expect(compactor.isPaused('s-1')).toBe(false);
    expect(h.events.at(-2)).toEqual({ type: 'compaction-resumed', sessionId: 's-1' });
  });

  it('counts only consecutive failures, and not manual ones', async () => {
    const h = await setup();
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      retry: fastRetry,
      model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl }),
    });
    const fail = async (trigger: 'threshold' | 'manual') => {
      h.mock.enqueue({ type: 'http-error', status: 401, errorType: 'authentication_error' });
      await compactor
        .compact({ sessionId: 's-1', store: h.store, trigger, signal: signal() })
        .catch(() => undefined);
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
});

describe('when nothing needs doing', () => {
  it('skips below the threshold on threshold triggers but compacts on manual ones', async () => {
    const h = await setup();
    const compactor = createCompactor({
      contextWindowTokens: 100_000,
      reserveTokens: 1000,
      keepRecentTokens: 20,
      summaryMaxTokens: 400,
      model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl }),
    });
    expect(await compactor.compact({ sessionId: 's-1', store: h.store, signal: signal() })).toEqual(
      {
        status: 'skipped',
        reason: 'not-needed',
      },
    );
    const manual = await compactor.compact({
      sessionId: 's-1',
      store: h.store,
      trigger: 'manual',
      signal: signal(),
    });
    expect(manual.status).toBe('compacted');
    // the compacted range is now summarized: nothing is left to compact before the latest request
    expect(
      await compactor.compact({
        sessionId: 's-1',
        store: h.store,
        trigger: 'manual',
        signal: signal(),
      }),
    ).toEqual({
      status: 'skipped',
      reason: 'nothing-to-compact',
    });
  });
});

describe('without any producer', () => {
  it('fails with a CompactionError that says so, writing nothing', async () => {
    const h = await setup();
    const before = await h.bytes();
    const compactor = createCompactor({ ...SMALL_WINDOW });
    const error = await compactor
      .compact({ sessionId: 's-1', store: h.store, signal: signal() })
      .catch((caught: unknown) => caught);
    expect(CompactionError.isInstance(error) && error.attempts.map((a) => a.reason)).toEqual([
      'no producer: configure model or providers',
    ]);
    expect((await h.bytes()).equals(before)).toBe(true);
  });
});
