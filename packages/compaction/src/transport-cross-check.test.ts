import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CompactionEvent } from '@keel/spec';
import type { MockProvider } from '@keel/testing';
import { createMockProvider } from '@keel/testing';
import { createTransport } from '@keel/transport';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cutOffAnswer } from '../test/cut-off-answer';
import { createFileTranscriptStore, writeTranscriptFile } from '../test/file-transcript-store';
import { SAMPLE_IDENTIFIERS, SMALL_WINDOW, sampleTranscript } from '../test/sample-transcript';
import { structuredSummaryReply, summaryKeeping } from '../test/summary-reply';
import { CompactionError } from './compaction-error';
import type { CompactionUsage } from './compaction-usage';
import { createCompactor } from './create-compactor';
import { BUILTIN_PRODUCER_ID } from './producer-ids';

let mock: MockProvider;
let dir: string;
let path: string;

beforeEach(async () => {
  mock = await createMockProvider({ defaultReply: structuredSummaryReply });
  dir = await mkdtemp(join(tmpdir(), 'keel-compaction-transport-'));
  path = join(dir, 's.jsonl');
  await writeTranscriptFile(path, sampleTranscript());
});

afterEach(async () => {
  await mock.close();
  await rm(dir, { recursive: true, force: true });
});

function transport(options: { stallTimeoutMs?: number } = {}) {
  return createTransport({
    api: 'anthropic-messages',
    baseUrl: mock.anthropicBaseUrl,
    apiKey: 'test-key',
    model: 'mock-summarizer',
    maxRetries: 0,
    ...options,
  });
}

describe('with the real @keel/transport as the model port', () => {
  it('retries a socket reset mid-summary and commits', async () => {
    mock.enqueue({ type: 'reset-after-chunks', chunks: 2 });
    const events: CompactionEvent[] = [];
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      retry: { baseDelayMs: 1, maxDelayMs: 2 },
      model: transport(),
      onEvent: (event) => events.push(event),
    });
    const store = createFileTranscriptStore(path);
    const result = await compactor.compact({
      sessionId: 's',
      store,
      signal: new AbortController().signal,
    });
    expect(result.status === 'compacted' && result.entry.provenance).toMatchObject({
      producerId: BUILTIN_PRODUCER_ID,
      attempts: 2,
    });
    expect(events.find((event) => event.type === 'compaction-retry')).toMatchObject({
      kind: 'connection',
    });
  });

  it('does not accept a summary the transport reports cut off at the token limit', async () => {
    mock.enqueue(cutOffAnswer(summaryKeeping(SAMPLE_IDENTIFIERS)));
    const compactor = createCompactor({ ...SMALL_WINDOW, model: transport() });
    const result = await compactor.compact({
      sessionId: 's',
      store: createFileTranscriptStore(path),
      signal: new AbortController().signal,
    });
    expect(result.status === 'compacted' && result.entry.provenance.attempts).toBe(2);
    expect(JSON.stringify(mock.requests[1]?.messages)).toContain('cut off at the token limit');
  });

  it('does not retry a transport stall timeout in place; nothing is written', async () => {
    mock.enqueue({ type: 'stall', afterChunks: 1 });
    const before = await readFile(path);
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      retry: { baseDelayMs: 1, maxDelayMs: 2 },
      model: transport({ stallTimeoutMs: 200 }),
    });
    const error = await compactor
      .compact({
        sessionId: 's',
        store: createFileTranscriptStore(path),
        signal: new AbortController().signal,
      })
      .catch((caught: unknown) => caught);
    expect(
      CompactionError.isInstance(error) && error.attempts.map((attempt) => attempt.kind),
    ).toEqual(['timeout']);
    expect(mock.requests).toHaveLength(1);
    expect((await readFile(path)).equals(before)).toBe(true);
  });

  it("hands each summarizer call's usage to onUsage with the session compacted", async () => {
    const usages: CompactionUsage[] = [];
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      chunkMaxTokens: 300,
      model: transport(),
      onUsage: (usage) => usages.push(usage),
    });
    const store = createFileTranscriptStore(path);
    const calls = compactor.plan((await store.read('s')).entries).chunks.length;
    expect(calls).toBeGreaterThan(1);
    for (let call = 0; call < calls; call += 1) {
      mock.enqueue({ type: 'ok', usage: { inputTokens: 100 + call, outputTokens: 10 + call } });
    }
    const result = await compactor.compact({
      sessionId: 'billed',
      store,
      signal: new AbortController().signal,
    });
    expect(result.status).toBe('compacted');
    expect(mock.requests).toHaveLength(calls);
    expect(usages).toEqual(
      Array.from({ length: calls }, (_, call) => ({
        sessionId: 'billed',
        usage: expect.objectContaining({ inputTokens: 100 + call, outputTokens: 10 + call }),
      })),
    );
  });

  it('compacts all the same when onUsage throws', async () => {
    let told = 0;
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      model: transport(),
      onUsage: () => {
        told += 1;
        throw new Error('listener broke');
      },
    });
    const result = await compactor.compact({
      sessionId: 's',
      store: createFileTranscriptStore(path),
      signal: new AbortController().signal,
    });
    expect(result.status).toBe('compacted');
    expect(told).toBe(mock.requests.length);
  });
});
