import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { CompactionError } from './compaction-error';
import { createCompactor } from './create-compactor';
import { BUILTIN_PRODUCER_ID } from './model-summarizer';
import { computeSourceDigest } from './source-digest';
import type { Harness } from './test-support/compactor-harness';
import { createHarness } from './test-support/compactor-harness';
import {
  SAMPLE_IDENTIFIERS,
  SMALL_WINDOW,
  sampleTranscript,
} from './test-support/sample-transcript';
import { createAnthropicPort, createOpenAIPort } from './test-support/sdk-model-ports';
import type { CompactionEntry, TranscriptEntry } from './types';

const fastRetry = { baseDelayMs: 1, maxDelayMs: 4 };
let harness: Harness | undefined;

/** Resolves once `condition` holds, checking on every turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function setup(entries: TranscriptEntry[] = sampleTranscript()): Promise<Harness> {
  harness = await createHarness(entries);
  return harness;
}

function lastLine(bytes: Buffer): CompactionEntry {
  const lines = bytes.toString('utf8').trim().split('\n');
  return JSON.parse(lines[lines.length - 1] ?? '') as CompactionEntry;
}

describe('built-in LLM summarizer over the real Anthropic SDK', () => {
  it('appends exactly one compaction entry with provenance and leaves history untouched', async () => {
    const h = await setup();
    const before = await h.bytes();
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl }),
      onEvent: h.onEvent,
    });
    const result = await compactor.compact({
      sessionId: 's-1',
      store: h.store,
      signal: new AbortController().signal,
    });
    expect(result.status).toBe('compacted');
    if (result.status !== 'compacted') return;
    const after = await h.bytes();
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.subarray(before.length).toString('utf8').trim().split('\n')).toHaveLength(1);
    const entry = lastLine(after);
    expect(entry).toEqual(result.entry);
    expect(entry.provenance.producerId).toBe(BUILTIN_PRODUCER_ID);
    expect(entry.provenance.attempts).toBe(1);
    expect(entry.provenance.sourceDigest).toBe(computeSourceDigest(result.plan.compacted));
    expect(entry.provenance.tokensBefore).toBe(result.plan.tokensBefore);
    expect(entry.provenance.tokensAfter).toBeLessThan(entry.provenance.tokensBefore);
    expect(entry.firstKeptEntryId).toBe(result.plan.kept[0]?.id);
    for (const id of SAMPLE_IDENTIFIERS) expect(entry.summary).toContain(id);
    // the latest request stays verbatim in context
    expect(result.plan.kept.some((m) => JSON.stringify(m.content).includes('docs/parser.md'))).toBe(
      true,
    );
    expect(h.events.map((e) => e.type)).toEqual(['compaction-start', 'compaction-end']);
  });

  it('rolls the previous summary forward and summarizes chunk by chunk within the budget', async () => {
    const h = await setup();
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      chunkMaxTokens: 300,
      model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl }),
    });
    const result = await compactor.compact({
      sessionId: 's-1',
      store: h.store,
      signal: new AbortController().signal,
    });
    if (result.status !== 'compacted') throw new Error('expected a compaction');
    expect(result.plan.chunks.length).toBeGreaterThan(1);
    expect(h.mock.requests).toHaveLength(result.plan.chunks.length);
    expect(result.entry.provenance.attempts).toBe(result.plan.chunks.length);
    const prompts = h.mock.requests.map((request) => JSON.stringify(request.messages));
    expect(prompts[0]).toContain('There is no earlier summary.');
    for (const prompt of prompts.slice(1)) expect(prompt).toContain('<previous-summary>');
    for (const prompt of prompts) expect(prompt).toContain('## Open items');
  });

  it('retries a socket reset mid-summary (a real SDK connection error) and succeeds', async () => {
    const h = await setup();
    h.mock.enqueue({ type: 'reset-after-chunks', chunks: 2 });
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      retry: fastRetry,
      model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl }),
      onEvent: h.onEvent,
    });
    const result = await compactor.compact({
      sessionId: 's-1',
      store: h.store,
      signal: new AbortController().signal,
    });
    expect(result.status).toBe('compacted');
    expect(h.mock.requests.map((r) => r.behavior)).toEqual(['reset-after-chunks', 'ok']);
    const retry = h.events.find((e) => e.type === 'compaction-retry');
    expect(retry).toMatchObject({ type: 'compaction-retry', chunk: 0, attempt: 2 });
    expect(['connection', 'provider_abort']).toContain(
      retry?.type === 'compaction-retry' ? retry.kind : '',
    );
    if (result.status === 'compacted') expect(result.entry.provenance.attempts).toBe(2);
  });

  it('retries the same reset over the real OpenAI SDK', async () => {
    const h = await setup();
    h.mock.enqueue({ type: 'reset-after-chunks', chunks: 1 });
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      retry: fastRetry,
      model: createOpenAIPort({ baseUrl: h.mock.openaiBaseUrl }),
    });
    const result = await compactor.compact({
      sessionId: 's-1',
      store: h.store,
      signal: new AbortController().signal,
    });
    expect(result.status).toBe('compacted');
    expect(h.mock.requests.map((r) => r.api)).toEqual(['openai-chat', 'openai-chat']);
  });

  it('retries a provider-side AbortError (the caller signal is not aborted)', async () => {
    const h = await setup();
    // the first request never answers; the adapter's own watchdog aborts it
    h.mock.enqueue({ type: 'hang' });
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      retry: fastRetry,
      model: createAnthropicPort({
        baseUrl: h.mock.anthropicBaseUrl,
        selfAbortOnCall: { call: 1, when: () => until(() => h.mock.requests.length === 1) },
      }),
      onEvent: h.onEvent,
    });
    const result = await compactor.compact({
      sessionId: 's-1',
      store: h.store,
      signal: new AbortController().signal,
    });
    expect(result.status).toBe('compacted');
    expect(h.events.find((e) => e.type === 'compaction-retry')).toMatchObject({
      kind: 'provider_abort',
    });
    expect(h.mock.requests.map((r) => r.behavior)).toEqual(['hang', 'ok']);
  });

  it('retries a stream that ends without its terminal event', async () => {
    const h = await setup();
    h.mock.enqueue({ type: 'truncated-stream', chunks: 2 });
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      retry: fastRetry,
      model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl }),
    });
    const result = await compactor.compact({
      sessionId: 's-1',
      store: h.store,
      signal: new AbortController().signal,
    });
    expect(result.status).toBe('compacted');
    expect(h.mock.requests.map((r) => r.behavior)).toEqual(['truncated-stream', 'ok']);
  });

  it('makes at most 3 attempts per chunk, then fails with the transcript byte-identical', async () => {
    const h = await setup();
    h.mock.enqueue({ behavior: mockFaults.serverError(503), times: 5 });
    const before = await h.bytes();
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      retry: fastRetry,
      model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl }),
    });
    const error = await compactor
      .compact({ sessionId: 's-1', store: h.store, signal: new AbortController().signal })
      .catch((caught: unknown) => caught);
    expect(CompactionError.isInstance(error)).toBe(true);
    if (!CompactionError.isInstance(error)) return;
    expect(error.code).toBe('all-producers-failed');
    expect(error.attempts.map((a) => [a.producerId, a.attempt, a.kind])).toEqual([
      [BUILTIN_PRODUCER_ID, 1, 'server_error'],
      [BUILTIN_PRODUCER_ID, 2, 'server_error'],
      [BUILTIN_PRODUCER_ID, 3, 'server_error'],
    ]);
    expect(h.mock.requests).toHaveLength(3);
    expect((await h.bytes()).equals(before)).toBe(true);
  });

  it('does not retry a non-abort transport timeout in place', async () => {
    const h = await setup();
    h.mock.enqueue({ type: 'hang' });
    const before = await h.bytes();
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      retry: fastRetry,
      model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl, timeoutMs: 300 }),
    });
    const error = await compactor
      .compact({ sessionId: 's-1', store: h.store, signal: new AbortController().signal })
      .catch((caught: unknown) => caught);
    expect(CompactionError.isInstance(error) && error.attempts.map((a) => a.kind)).toEqual([
      'timeout',
    ]);
    expect(h.mock.requests).toHaveLength(1);
    expect((await h.bytes()).equals(before)).toBe(true);
  });
});

describe('caller abort', () => {
  it('mid-summary stops at once and writes nothing', async () => {
    const h = await setup();
    h.mock.enqueue({ type: 'stall', afterChunks: 1 });
    const before = await h.bytes();
    const controller = new AbortController();
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      retry: fastRetry,
      model: createAnthropicPort({
        baseUrl: h.mock.anthropicBaseUrl,
        onEvent: (event) => {
          if (event.type === 'text-delta') controller.abort(new Error('user pressed stop'));
        },
      }),
      onEvent: h.onEvent,
    });
    await expect(
      compactor.compact({ sessionId: 's-1', store: h.store, signal: controller.signal }),
    ).rejects.toThrow('user pressed stop');
    expect(h.mock.requests).toHaveLength(1);
    expect(h.store.appendCount()).toBe(0);
    expect((await h.bytes()).equals(before)).toBe(true);
    expect(h.events.at(-1)).toMatchObject({ type: 'compaction-end', outcome: 'aborted' });
    expect(compactor.isPaused('s-1')).toBe(false);
  });

  it('wakes a backoff wait and writes nothing', async () => {
    const h = await setup();
    h.mock.enqueue(mockFaults.serverError(500));
    const before = await h.bytes();
    const controller = new AbortController();
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      retry: { baseDelayMs: 600_000, maxDelayMs: 600_000 },
      model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl }),
      onEvent: (event) => {
        if (event.type === 'compaction-retry') controller.abort(new Error('shutdown'));
      },
    });
    await expect(
      compactor.compact({ sessionId: 's-1', store: h.store, signal: controller.signal }),
    ).rejects.toThrow('shutdown');
    expect(h.mock.requests).toHaveLength(1);
    expect((await h.bytes()).equals(before)).toBe(true);
  });
});
