import { appendFile } from 'node:fs/promises';
import type { CompactionEntry, CompactionEvent } from '@keel/spec';
import { mockFaults } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../test/compactor-harness';
import { cutOffAnswer } from '../test/cut-off-answer';
import { messageEntry } from '../test/message-entry';
import { SAMPLE_IDENTIFIERS } from '../test/sample-transcript';
import { createAnthropicPort, createOpenAIPort } from '../test/sdk-model-ports';
import { summaryKeeping } from '../test/summary-reply';
import { BUILTIN_PRODUCER_ID } from './producer-ids';
import { computeSourceDigest } from './source-digest';

const setup = useHarness();

/** Resolves once `condition` holds, checking on every turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

function lastLine(bytes: Buffer): CompactionEntry {
  const lines = bytes.toString('utf8').trim().split('\n');
  return JSON.parse(lines[lines.length - 1] ?? '') as CompactionEntry;
}

function retries(events: readonly CompactionEvent[]) {
  return events.filter(
    (event): event is Extract<CompactionEvent, { type: 'compaction-retry' }> =>
      event.type === 'compaction-retry',
  );
}

describe('built-in LLM summarizer over the real Anthropic SDK', () => {
  it('appends exactly one compaction entry with provenance and leaves history untouched', async () => {
    const h = await setup();
    const before = await h.bytes();
    const result = await h.compacted(h.compactor());
    const after = await h.bytes();
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.subarray(before.length).toString('utf8').trim().split('\n')).toHaveLength(1);
    expect(h.store.appendCount()).toBe(1);
    const entry = lastLine(after);
    expect(entry).toEqual(result.entry);
    expect(entry.provenance.producerId).toBe(BUILTIN_PRODUCER_ID);
    expect(entry.provenance.attempts).toBe(1);
    expect(entry.provenance.sourceDigest).toBe(computeSourceDigest(result.plan.compacted));
    expect(entry.provenance.sourceDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
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
    const result = await h.compacted(h.compactor({ chunkMaxTokens: 300 }));
    expect(result.plan.chunks.length).toBeGreaterThan(1);
    expect(h.mock.requests).toHaveLength(result.plan.chunks.length);
    expect(result.entry.provenance.attempts).toBe(result.plan.chunks.length);
    const prompts = h.mock.requests.map((request) => JSON.stringify(request.messages));
    expect(prompts[0]).toContain('There is no earlier summary.');
    for (const prompt of prompts.slice(1)) expect(prompt).toContain('<previous-summary>');
    for (const prompt of prompts) expect(prompt).toContain('## Open items');
  });

  it("updates the previous compaction's summary and keeps its identifiers", async () => {
    const h = await setup();
    const compactor = h.compactor();
    const first = await h.compacted(compactor);
    const say = (id: string, role: 'user' | 'assistant', text: string) =>
      `${JSON.stringify(messageEntry(id, role, text))}\n`;
    await appendFile(
      h.store.path,
      say('n1', 'user', 'Rename /work/app/src/lexer.ts too.') +
        say('n2', 'assistant', `Renamed. ${'More context. '.repeat(300)}`) +
        say('n3', 'user', 'Thanks, what is next?'),
    );
    const second = await h.compacted(compactor);
    expect(second.plan.previousSummary).toBe(first.entry.summary);
    const prompt = JSON.stringify(h.mock.requests.at(-1)?.messages);
    expect(prompt).toContain('<previous-summary>');
    expect(prompt).toContain(JSON.stringify(first.entry.summary).slice(1, 60));
    // identifiers only the earlier summary still holds survive the update, new ones join them
    expect(JSON.stringify(second.plan.compacted)).not.toContain('issues/42');
    expect(second.entry.summary).toContain('https://github.com/acme/app/issues/42');
    expect(second.entry.summary).toContain('/work/app/src/lexer.ts');
  });

  it('retries a socket reset mid-summary (a real SDK connection error) and succeeds', async () => {
    const h = await setup();
    h.mock.enqueue({ type: 'reset-after-chunks', chunks: 2 });
    const result = await h.compacted(h.compactor());
    expect(h.mock.requests.map((r) => r.behavior)).toEqual(['reset-after-chunks', 'ok']);
    const [retry] = retries(h.events);
    expect(retry).toMatchObject({ chunk: 0, attempt: 2 });
    expect(['connection', 'provider_abort']).toContain(retry?.kind);
    expect(result.entry.provenance.attempts).toBe(2);
  });

  it('retries the same reset over the real OpenAI SDK', async () => {
    const h = await setup();
    h.mock.enqueue({ type: 'reset-after-chunks', chunks: 1 });
    await h.compacted(h.compactor({ model: createOpenAIPort({ baseUrl: h.mock.openaiBaseUrl }) }));
    expect(h.mock.requests.map((r) => r.api)).toEqual(['openai-chat', 'openai-chat']);
  });

  it('retries a provider-side AbortError (the caller signal is not aborted)', async () => {
    const h = await setup();
    // the first request never answers; the adapter's own watchdog aborts it
    h.mock.enqueue({ type: 'hang' });
    const caller = new AbortController();
    const compactor = h.compactor({
      model: createAnthropicPort({
        baseUrl: h.mock.anthropicBaseUrl,
        selfAbortOnCall: { call: 1, when: () => until(() => h.mock.requests.length === 1) },
      }),
    });
    await h.compacted(compactor, { signal: caller.signal });
    expect(caller.signal.aborted).toBe(false);
    expect(retries(h.events).map((e) => e.kind)).toEqual(['provider_abort']);
    expect(h.mock.requests.map((r) => r.behavior)).toEqual(['hang', 'ok']);
  });

  it('retries a rate limit after the server-given retry-after', async () => {
    const h = await setup();
    h.mock.enqueue(mockFaults.rateLimited({ retryAfterMs: 7 }));
    await h.compacted(h.compactor({ retry: { baseDelayMs: 5000, maxDelayMs: 5000 } }));
    expect(retries(h.events).map((e) => [e.kind, e.delayMs])).toEqual([['rate_limit', 7]]);
    expect(h.mock.requests).toHaveLength(2);
  });

  it('retries a stream that ends without its terminal event', async () => {
    const h = await setup();
    h.mock.enqueue({ type: 'truncated-stream', chunks: 2 });
    await h.compacted(h.compactor());
    expect(h.mock.requests.map((r) => r.behavior)).toEqual(['truncated-stream', 'ok']);
  });

  it('waits exponentially with jitter between attempts', async () => {
    const h = await setup();
    h.mock.enqueue({ behavior: mockFaults.serverError(503), times: 2 });
    const draws = [0, 0.5];
    const compactor = h.compactor({
      retry: { baseDelayMs: 4, maxDelayMs: 100, random: () => draws.shift() ?? 0 },
    });
    await h.compacted(compactor);
    // nominal 4 then 8 ms; equal jitter keeps half and adds the draw's share of the other half
    expect(retries(h.events).map((e) => [e.attempt, e.delayMs])).toEqual([
      [2, 2],
      [3, 6],
    ]);
  });

  it('counts attempts per chunk: each chunk gets its own 3', async () => {
    const h = await setup();
    const compactor = h.compactor({ chunkMaxTokens: 300 });
    const chunks = compactor.plan((await h.store.read('s-1')).entries).chunks.length;
    expect(chunks).toBeGreaterThan(1);
    for (let chunk = 0; chunk < chunks; chunk += 1) {
      h.mock.enqueue({ behavior: mockFaults.serverError(500), times: 2 });
      h.mock.enqueue({ type: 'ok' });
    }
    const result = await h.compacted(compactor);
    expect(h.mock.requests).toHaveLength(chunks * 3);
    expect(result.entry.provenance.attempts).toBe(chunks * 3);
    expect(retries(h.events).map((e) => `${e.chunk}:${e.attempt}`)).toEqual(
      Array.from({ length: chunks }, (_, chunk) => [`${chunk}:2`, `${chunk}:3`]).flat(),
    );
  });

  it('makes at most 3 attempts per chunk, then fails with the transcript byte-identical', async () => {
    const h = await setup();
    h.mock.enqueue({ behavior: mockFaults.serverError(503), times: 5 });
    const before = await h.bytes();
    const error = await h.compactError(h.compactor());
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
    const error = await h.compactError(
      h.compactor({
        model: createAnthropicPort({ baseUrl: h.mock.anthropicBaseUrl, timeoutMs: 300 }),
      }),
    );
    expect(error.attempts.map((a) => a.kind)).toEqual(['timeout']);
    expect(h.mock.requests).toHaveLength(1);
    expect(retries(h.events)).toEqual([]);
    expect((await h.bytes()).equals(before)).toBe(true);
  });

  it('bounds a model call by modelTimeoutMs, classified as a timeout and not retried', async () => {
    const h = await setup();
    h.mock.enqueue({ type: 'hang' });
    const before = await h.bytes();
    const error = await h.compactError(h.compactor({ modelTimeoutMs: 200 }));
    expect(error.attempts.map((a) => [a.kind, a.reason])).toEqual([
      ['timeout', 'chunk 1: timeout: model call timed out after 200 ms'],
    ]);
    expect(h.mock.requests).toHaveLength(1);
    expect((await h.bytes()).equals(before)).toBe(true);
  });

  it('fails on a refusal without retrying it, writing nothing', async () => {
    const h = await setup();
    let calls = 0;
    const compactor = h.compactor({
      model: {
        async *stream() {
          calls += 1;
          yield { type: 'refusal', text: 'I cannot help with that.' } as const;
          yield { type: 'finish', reason: 'stop' } as const;
        },
      },
    });
    const error = await h.compactError(compactor);
    expect(error.attempts.map((a) => [a.kind, a.reason])).toEqual([
      ['content_policy', 'chunk 1: content_policy: output filtered or refused'],
    ]);
    expect(calls).toBe(1);
    expect(h.store.appendCount()).toBe(0);
  });
});

/** A summary that passes validation for `sampleTranscript()`: every section and identifier. */
const COMPLETE_LOOKING = summaryKeeping(SAMPLE_IDENTIFIERS);

describe('a summary cut off at the token limit (finish: length)', () => {
  it('is never accepted from the built-in summarizer, however complete it looks', async () => {
    const h = await setup();
    h.mock.enqueue(cutOffAnswer(COMPLETE_LOOKING));
    const result = await h.compacted(h.compactor());
    expect(result.entry.provenance).toMatchObject({ producerId: BUILTIN_PRODUCER_ID, attempts: 2 });
    const end = h.events.at(-1);
    expect(end?.type === 'compaction-end' && end.attempts.map((a) => a.reason)).toEqual([
      'invalid summary: the summary was cut off at the token limit',
    ]);
    expect(JSON.stringify(h.mock.requests[1]?.messages)).toContain(
      'the summary was cut off at the token limit',
    );
  });

  it('is never accepted from the corrective retry either; nothing is written', async () => {
    const h = await setup();
    h.mock.enqueue({ type: 'ok', text: 'The parser was fixed.' }, cutOffAnswer(COMPLETE_LOOKING));
    const before = await h.bytes();
    const error = await h.compactError(h.compactor());
    expect(error.attempts.map((a) => a.reason)).toEqual([
      expect.stringMatching(/^invalid summary: missing sections: Goal/),
      'invalid summary after correction: the summary was cut off at the token limit',
    ]);
    expect(h.mock.requests).toHaveLength(2);
    expect((await h.bytes()).equals(before)).toBe(true);
  });

  it('asks the model for a quarter more than the budget, so a summary near it can end on its own', async () => {
    const h = await setup();
    await h.compacted(h.compactor({ summaryMaxTokens: 400 }));
    expect(h.mock.requests[0]?.body).toMatchObject({ max_tokens: 500 });
  });

  it('fails the rolling summary when an earlier chunk is cut off, before any later chunk', async () => {
    const h = await setup();
    const compactor = h.compactor({ chunkMaxTokens: 300 });
    expect(compactor.plan((await h.store.read('s-1')).entries).chunks.length).toBeGreaterThan(1);
    h.mock.enqueue(cutOffAnswer(COMPLETE_LOOKING));
    const error = await h.compactError(compactor);
    expect(error.attempts.map((a) => a.reason)).toEqual([
      'chunk 1: the summary was cut off at the token limit',
    ]);
    expect(h.mock.requests).toHaveLength(1);
  });
});

describe('caller abort', () => {
  it('mid-summary stops at once and writes nothing', async () => {
    const h = await setup();
    h.mock.enqueue({ type: 'stall', afterChunks: 1 });
    const before = await h.bytes();
    const controller = new AbortController();
    const compactor = h.compactor({
      model: createAnthropicPort({
        baseUrl: h.mock.anthropicBaseUrl,
        onEvent: (event) => {
          if (event.type === 'text-delta') controller.abort(new Error('user pressed stop'));
        },
      }),
    });
    await expect(h.compact(compactor, { signal: controller.signal })).rejects.toThrow(
      'user pressed stop',
    );
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
    const compactor = h.compactor({
      retry: { baseDelayMs: 600_000, maxDelayMs: 600_000 },
      onEvent: (event) => {
        if (event.type === 'compaction-retry') controller.abort(new Error('shutdown'));
      },
    });
    await expect(h.compact(compactor, { signal: controller.signal })).rejects.toThrow('shutdown');
    expect(h.mock.requests).toHaveLength(1);
    expect((await h.bytes()).equals(before)).toBe(true);
  });

  it('abandons a model port that ignores its signal', async () => {
    const h = await setup();
    const controller = new AbortController();
    let started = false;
    const compactor = h.compactor({
      model: {
        async *stream() {
          started = true;
          controller.abort(new Error('user stop'));
          await new Promise(() => undefined);
        },
      },
    });
    await expect(h.compact(compactor, { signal: controller.signal })).rejects.toThrow('user stop');
    expect(started).toBe(true);
    expect(h.store.appendCount()).toBe(0);
  });

  it('wakes a retry-after wait too', async () => {
    const h = await setup();
    h.mock.enqueue(mockFaults.rateLimited({ retryAfterSeconds: 50 }));
    const controller = new AbortController();
    const compactor = h.compactor({
      onEvent: (event) => {
        if (event.type === 'compaction-retry') controller.abort(new Error('stop waiting'));
      },
    });
    await expect(h.compact(compactor, { signal: controller.signal })).rejects.toThrow(
      'stop waiting',
    );
    expect(h.mock.requests).toHaveLength(1);
    expect(h.store.appendCount()).toBe(0);
  });
});
