import Anthropic from '@anthropic-ai/sdk';
import type { CompactionProvider, CompactionProviderRequest } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../test/compactor-harness';
import { SAMPLE_IDENTIFIERS } from '../test/sample-transcript';
import { createCompactionRegistry } from './compaction-registry';
import { BUILTIN_PRODUCER_ID } from './producer-ids';
import { SUMMARY_SECTIONS } from './summary-sections';

const setup = useHarness();

function validSummary(request: CompactionProviderRequest, extra = ''): string {
  return SUMMARY_SECTIONS.map((section) =>
    section === 'Exact identifiers'
      ? `## ${section}\n${request.requiredIdentifiers.join('\n')}`
      : `## ${section}\n- ${extra || 'kept'}`,
  ).join('\n');
}

function provider(id: string, summarize: CompactionProvider['summarize']): CompactionProvider {
  return { specificationVersion: 'v1', id, summarize };
}

/** A provider that waits for its signal and rejects with its reason. */
function waitingProvider(id: string, started: { count: number }): CompactionProvider {
  return provider(
    id,
    (request) =>
      new Promise((_, reject) => {
        started.count += 1;
        request.signal.addEventListener('abort', () => reject(request.signal.reason), {
          once: true,
        });
      }),
  );
}

describe('third-party providers', () => {
  it('uses the first provider whose summary is valid, without calling the model', async () => {
    const h = await setup();
    const seen: CompactionProviderRequest[] = [];
    const compactor = h.compactor({
      providers: [
        provider('acme', async (request) => {
          seen.push(request);
          return { summary: validSummary(request) };
        }),
      ],
    });
    const result = await h.compacted(compactor);
    expect(result.entry.provenance).toMatchObject({ producerId: 'acme', attempts: 1 });
    expect(h.mock.requests).toHaveLength(0);
    expect(seen[0]?.entries).toEqual(result.plan.compacted);
    expect(seen[0]?.requiredIdentifiers).toEqual(expect.arrayContaining(SAMPLE_IDENTIFIERS));
    expect(seen[0]?.instructions).toContain('## Exact identifiers');
  });

  it('falls back to the built-in summarizer when a provider throws, returns empty or disconnects', async () => {
    const h = await setup();
    // a provider that itself calls a model and meets a socket reset
    h.mock.enqueue({ type: 'reset-before-headers', match: { model: 'provider-model' } });
    const client = new Anthropic({ apiKey: 'k', baseURL: h.mock.anthropicBaseUrl, maxRetries: 0 });
    const compactor = h.compactor({
      providers: [
        provider('throws', async () => {
          throw new Error('provider exploded');
        }),
        provider('empty', async () => ({ summary: '   ' })),
        provider('disconnects', async (request) => {
          await client.messages.create(
            { model: 'provider-model', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] },
            { signal: request.signal },
          );
          return { summary: 'unreachable' };
        }),
      ],
    });
    const result = await h.compacted(compactor);
    expect(result.entry.provenance.producerId).toBe(BUILTIN_PRODUCER_ID);
    const fallbacks = h.events.filter((e) => e.type === 'compaction-fallback');
    expect(fallbacks.map((e) => [e.producerId, e.nextProducerId])).toEqual([
      ['throws', 'empty'],
      ['empty', 'disconnects'],
      ['disconnects', BUILTIN_PRODUCER_ID],
    ]);
    const end = h.events.at(-1);
    expect(
      end?.type === 'compaction-end' && end.attempts.map((a) => [a.producerId, a.kind]),
    ).toEqual([
      ['throws', 'unknown'],
      ['empty', undefined],
      ['disconnects', 'connection'],
    ]);
  });

  it('falls back to the built-in summarizer on a provider-side AbortError (the caller signal not aborted)', async () => {
    const h = await setup();
    // the provider's own model call never answers; its own watchdog aborts it
    h.mock.enqueue({ type: 'hang', match: { model: 'provider-model' } });
    const client = new Anthropic({ apiKey: 'k', baseURL: h.mock.anthropicBaseUrl, maxRetries: 0 });
    const caller = new AbortController();
    const compactor = h.compactor({
      providers: [
        provider('watchdog', async () => {
          const own = new AbortController();
          const call = client.messages.create(
            { model: 'provider-model', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] },
            { signal: own.signal },
          );
          while (h.mock.requests.length === 0) await new Promise((r) => setImmediate(r));
          own.abort();
          await call;
          return { summary: 'unreachable' };
        }),
        provider('aborts', async () => {
          throw new DOMException('This operation was aborted', 'AbortError');
        }),
      ],
    });
    const result = await h.compacted(compactor, { signal: caller.signal });
    expect(caller.signal.aborted).toBe(false);
    expect(result.entry.provenance.producerId).toBe(BUILTIN_PRODUCER_ID);
    const end = h.events.at(-1);
    expect(
      end?.type === 'compaction-end' && end.attempts.map((a) => [a.producerId, a.kind]),
    ).toEqual([
      ['watchdog', 'provider_abort'],
      ['aborts', 'provider_abort'],
    ]);
    expect(h.mock.requests.map((r) => r.model)).toEqual(['provider-model', 'mock-summarizer']);
  });

  it('falls back when a provider times out, and the provider sees its signal abort', async () => {
    const h = await setup();
    const started = { count: 0 };
    let providerSignal: AbortSignal | undefined;
    const compactor = h.compactor({
      providerTimeoutMs: 50,
      providers: [
        provider('slow', (request) => {
          providerSignal = request.signal;
          return waitingProvider('slow', started).summarize(request);
        }),
      ],
    });
    const result = await h.compacted(compactor);
    expect(result.entry.provenance.producerId).toBe(BUILTIN_PRODUCER_ID);
    expect(providerSignal?.aborted).toBe(true);
    const end = h.events.at(-1);
    expect(end?.type === 'compaction-end' && end.attempts[0]).toMatchObject({
      producerId: 'slow',
      kind: 'timeout',
    });
  });

  it('propagates a caller abort from the provider path without trying the built-in one', async () => {
    const h = await setup();
    const before = await h.bytes();
    const started = { count: 0 };
    const controller = new AbortController();
    const compactor = h.compactor({
      providers: [waitingProvider('waits', started)],
    });
    const pending = h.compact(compactor, { signal: controller.signal });
    while (started.count === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('user stop'));
    await expect(pending).rejects.toThrow('user stop');
    expect(h.mock.requests).toHaveLength(0);
    expect((await h.bytes()).equals(before)).toBe(true);
  });

  it('abandons a provider that ignores the caller abort', async () => {
    const h = await setup();
    const controller = new AbortController();
    let called = false;
    const compactor = h.compactor({
      providers: [
        provider('deaf', () => {
          called = true;
          controller.abort(new Error('stop now'));
          return new Promise(() => undefined);
        }),
      ],
    });
    await expect(h.compact(compactor, { signal: controller.signal })).rejects.toThrow('stop now');
    expect(called).toBe(true);
    expect(h.store.appendCount()).toBe(0);
  });

  it('looks providers up by id in a registry, in the configured order', async () => {
    const h = await setup();
    const registry = createCompactionRegistry();
    const order: string[] = [];
    registry.register(
      provider('first', async () => {
        order.push('first');
        throw new Error('no');
      }),
    );
    registry.register(
      provider('second', async (request) => {
        order.push('second');
        return { summary: validSummary(request) };
      }),
    );
    const compactor = h.compactor({
      registry,
      providers: ['second', 'missing', 'first'],
    });
    const result = await h.compact(compactor);
    expect(order).toEqual(['second']);
    expect(result.status === 'compacted' && result.entry.provenance.producerId).toBe('second');
  });
});

describe('validation of every producer', () => {
  it('catches an empty built-in summary, asks once for a correction, then fails writing nothing', async () => {
    const h = await setup();
    h.mock.enqueue({ behavior: { type: 'ok', text: '' }, times: 2 });
    const before = await h.bytes();
    const compactor = h.compactor();
    const error = await h.compactError(compactor);
    expect(error.attempts.map((a) => a.reason)).toEqual([
      'invalid summary: the summary is empty',
      'invalid summary after correction: the summary is empty',
    ]);
    expect(h.mock.requests).toHaveLength(2);
    expect(JSON.stringify(h.mock.requests[1]?.messages)).toContain('previous summary was rejected');
    expect((await h.bytes()).equals(before)).toBe(true);
  });

  it('catches a section-less summary and keeps the corrected one', async () => {
    const h = await setup();
    h.mock.enqueue({ type: 'ok', text: 'The user fixed a parser. Everything went fine.' });
    const compactor = h.compactor();
    const result = await h.compacted(compactor);
    expect(result.entry.provenance.attempts).toBe(2);
    expect(result.entry.summary).toContain('## Goal');
    const correction = JSON.stringify(h.mock.requests[1]?.messages);
    expect(correction).toContain('missing sections: Goal, Constraints');
    expect(correction).toContain('The user fixed a parser.');
  });

  it('rejects a provider summary that drops an identifier, then uses its corrected one', async () => {
    const h = await setup();
    const instructions: string[] = [];
    const compactor = h.compactor({
      providers: [
        provider('forgetful', async (request) => {
          instructions.push(request.instructions);
          const summary = validSummary(request);
          return { summary: instructions.length === 1 ? summary.replace('3f2a9c1d', '') : summary };
        }),
      ],
    });
    const result = await h.compacted(compactor);
    expect(result.entry.provenance).toMatchObject({
      producerId: 'forgetful',
      attempts: 2,
    });
    expect(instructions[1]).toContain('missing exact identifiers: 3f2a9c1d');
  });

  it('gives a CompactionError listing every attempt when every producer fails, the file byte-identical', async () => {
    const h = await setup();
    h.mock.enqueue({ behavior: { type: 'http-error', status: 500 }, times: 3 });
    const before = await h.bytes();
    const compactor = h.compactor({
      providers: [provider('broken', async () => ({ summary: 'Error generating summary' }))],
    });
    const error = await h.compactError(compactor);
    expect(error.attempts.map((a) => `${a.producerId}#${a.attempt}`)).toEqual([
      'broken#1',
      'broken#2',
      `${BUILTIN_PRODUCER_ID}#1`,
      `${BUILTIN_PRODUCER_ID}#2`,
      `${BUILTIN_PRODUCER_ID}#3`,
    ]);
    expect(error.attempts.map((a) => a.reason)).toEqual([
      expect.stringMatching(
        /^invalid summary: missing sections: Goal, .*missing exact identifiers/,
      ),
      expect.stringMatching(/^invalid summary after correction: missing sections: Goal/),
      expect.stringMatching(/^chunk 1: server_error: /),
      expect.stringMatching(/^chunk 1: server_error: /),
      expect.stringMatching(/^chunk 1: server_error: /),
    ]);
    expect(error.sessionId).toBe('s-1');
    expect(error.message).toContain('the transcript is unchanged');
    expect((await h.bytes()).equals(before)).toBe(true);
    expect(h.store.appendCount()).toBe(0);
  });
});

describe('concurrent compactions of one session', () => {
  it('run one at a time: the second plans on what the first wrote', async () => {
    const h = await setup();
    const before = await h.bytes();
    let calls = 0;
    const compactor = h.compactor({
      providers: [
        provider('slow', async (request) => {
          calls += 1;
          // long enough for an unserialized second call to read the same transcript
          await new Promise((resolve) => setTimeout(resolve, 20));
          return { summary: validSummary(request) };
        }),
      ],
    });
    const results = await Promise.all([
      h.compact(compactor),
      h.compact(compactor, { trigger: 'overflow' }),
    ]);
    expect(results.map((result) => result.status)).toEqual(['compacted', 'skipped']);
    expect(results[1]).toEqual({
      status: 'skipped',
      reason: 'nothing-to-compact',
      detail: 'keepRecentTokens (20) covers all 2 messages in context (20 tokens)',
    });
    expect(calls).toBe(1);
    expect(h.store.appendCount()).toBe(1);
    const added = (await h.bytes()).subarray(before.length).toString('utf8');
    expect(added.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('a waiting call leaves at once on abort and writes nothing', async () => {
    const h = await setup();
    const started = { count: 0 };
    const first = new AbortController();
    const compactor = h.compactor({ providers: [waitingProvider('waits', started)] });
    const holding = h.compact(compactor, { signal: first.signal });
    while (started.count === 0) await new Promise((resolve) => setImmediate(resolve));
    const second = new AbortController();
    const waiting = h.compact(compactor, { signal: second.signal });
    // time enough to read and reach the provider, were it not waiting for the first call
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started.count).toBe(1);
    second.abort(new Error('second gave up'));
    await expect(waiting).rejects.toThrow('second gave up');
    expect(started.count).toBe(1);
    first.abort(new Error('first gave up'));
    await expect(holding).rejects.toThrow('first gave up');
    expect(h.store.appendCount()).toBe(0);
  });
});
