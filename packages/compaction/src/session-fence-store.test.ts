import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TranscriptStore } from '@keel/session-fence';
import { createTranscriptStore } from '@keel/session-fence';
import type { CompactionStore, MessageEntry } from '@keel/spec';
import type { MockProvider } from '@keel/testing';
import { createMockProvider } from '@keel/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SMALL_WINDOW, sampleTranscript } from '../test/sample-transcript';
import { createAnthropicPort } from '../test/sdk-model-ports';
import { structuredSummaryReply } from '../test/summary-reply';
import { CompactionError } from './compaction-error';
import { createCompactor } from './create-compactor';
import { BUILTIN_PRODUCER_ID } from './producer-ids';

/** The file store is compaction's port as it is. */
function asCompactionStore(fileStore: TranscriptStore): CompactionStore {
  return fileStore satisfies CompactionStore;
}

let dir: string;
let store: TranscriptStore;
let mock: MockProvider;
const sessionId = 'session-7';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keel-compaction-fence-'));
  store = createTranscriptStore({ sessionsDir: dir });
  mock = await createMockProvider({ defaultReply: structuredSummaryReply });
  const messages = sampleTranscript().filter(
    (entry): entry is MessageEntry => entry.type === 'message',
  );
  await store.append(sessionId, messages);
});

afterEach(async () => {
  await mock.close();
  await rm(dir, { recursive: true, force: true });
});

describe('with @keel/session-fence transcript store', () => {
  it('commits one compaction entry that the store reads back, under the session lock', async () => {
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      model: createAnthropicPort({ baseUrl: mock.anthropicBaseUrl }),
    });
    const lock = await store.lease(sessionId);
    try {
      const result = await compactor.compact({
        sessionId,
        store: asCompactionStore(store),
        signal: new AbortController().signal,
      });
      expect(result.status).toBe('compacted');
    } finally {
      await lock.release();
    }
    const read = await store.read(sessionId);
    expect(read.issues).toEqual([]);
    const last = read.entries.at(-1);
    expect(last?.type).toBe('compaction');
    expect(last?.type === 'compaction' && last.provenance.producerId).toBe(BUILTIN_PRODUCER_ID);
    expect(read.entries.filter((entry) => entry.type === 'compaction')).toHaveLength(1);
  });

  it('leaves the transcript file byte-identical when every producer fails', async () => {
    mock.enqueue({
      behavior: { type: 'http-error', status: 400, errorType: 'invalid_request_error' },
      times: 1,
    });
    const path = store.transcriptPath(sessionId);
    const before = await readFile(path);
    const compactor = createCompactor({
      ...SMALL_WINDOW,
      providers: [
        {
          specificationVersion: 'v1',
          id: 'down',
          summarize: async () => Promise.reject(new Error('down')),
        },
      ],
      model: createAnthropicPort({ baseUrl: mock.anthropicBaseUrl }),
    });
    const error = await compactor
      .compact({ sessionId, store: asCompactionStore(store), signal: new AbortController().signal })
      .catch((caught: unknown) => caught);
    expect(
      CompactionError.isInstance(error) && error.attempts.map((a) => [a.producerId, a.kind]),
    ).toEqual([
      ['down', 'unknown'],
      [BUILTIN_PRODUCER_ID, 'invalid_request'],
    ]);
    expect((await readFile(path)).equals(before)).toBe(true);
  });
});
