import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  CompactionEntry,
  CompactionEvent,
  CompactRequest,
  CompactResult,
  TranscriptEntry,
} from '@keel/spec';
import type { MockProvider, MockProviderOptions } from '@keel/testing';
import { createMockProvider } from '@keel/testing';
import { afterEach } from 'vitest';
import { CompactionError } from '../src/compaction-error';
import type { Compactor, CompactorOptions } from '../src/create-compactor';
import { createCompactor } from '../src/create-compactor';
import type { CompactionPlan } from '../src/plan-compaction';
import type { FileTranscriptStore } from './file-transcript-store';
import { createFileTranscriptStore, writeTranscriptFile } from './file-transcript-store';
import { SMALL_WINDOW, sampleTranscript } from './sample-transcript';
import { createAnthropicPort } from './sdk-model-ports';
import { structuredSummaryReply } from './summary-reply';

/** Retry options that keep backoff waits to a few milliseconds. */
export const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 4 };

export interface Harness {
  mock: MockProvider;
  store: FileTranscriptStore;
  events: CompactionEvent[];
  onEvent: (event: CompactionEvent) => void;
  /** The transcript file's bytes now. */
  bytes(): Promise<Buffer>;
  /**
   * A compactor over this transcript: `SMALL_WINDOW`, `FAST_RETRY`, the real Anthropic SDK talking
   * to the loopback provider as the model, events recorded in `events`. `options` override these
   * (`model: undefined` leaves the built-in summarizer out).
   */
  compactor(options?: CompactorOptions): Compactor;
  /** `compact()` of session `s-1` on this store with a fresh signal, unless `request` says otherwise. */
  compact(compactor: Compactor, request?: Partial<CompactRequest>): Promise<CompactResult>;
  /**
   * Like `compact`, and the result must be `compacted`; with the plan the compactor made of the
   * transcript as it was before.
   */
  compacted(compactor: Compactor, request?: Partial<CompactRequest>): Promise<Compacted>;
  /** Like `compact`, and it must reject with a `CompactionError`, which is returned. */
  compactError(compactor: Compactor, request?: Partial<CompactRequest>): Promise<CompactionError>;
  close(): Promise<void>;
}

/** A committed compaction and the plan it carried out. */
export interface Compacted {
  status: 'compacted';
  entry: CompactionEntry;
  plan: CompactionPlan;
}

/** A real JSONL transcript in a temp dir, and the loopback provider answering as a summarizer. */
export async function createHarness(
  entries: readonly TranscriptEntry[] = sampleTranscript(),
  mockOptions: MockProviderOptions = {},
): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'keel-compaction-'));
  const path = join(dir, 's-1.jsonl');
  await writeTranscriptFile(path, entries);
  const mock = await createMockProvider({ defaultReply: structuredSummaryReply, ...mockOptions });
  const events: CompactionEvent[] = [];
  const store = createFileTranscriptStore(path);
  const onEvent = (event: CompactionEvent): void => {
    events.push(event);
  };
  const compact = (compactor: Compactor, request: Partial<CompactRequest> = {}) =>
    compactor.compact({
      sessionId: 's-1',
      store,
      signal: new AbortController().signal,
      ...request,
    });
  return {
    mock,
    store,
    events,
    onEvent,
    bytes: () => readFile(path),
    compactor: (options = {}) =>
      createCompactor({
        ...SMALL_WINDOW,
        retry: FAST_RETRY,
        model: createAnthropicPort({ baseUrl: mock.anthropicBaseUrl }),
        onEvent,
        ...options,
      }),
    compact,
    async compacted(compactor, request) {
      const plan = compactor.plan((await store.read('s-1')).entries);
      const result = await compact(compactor, request);
      if (result.status !== 'compacted') {
        throw new Error(`expected a compaction, got skipped (${result.reason})`);
      }
      return { ...result, plan };
    },
    async compactError(compactor, request) {
      const outcome = await compact(compactor, request).then(
        (result) => new Error(`expected a CompactionError, got ${result.status}`),
        (error: unknown) => error,
      );
      if (!CompactionError.isInstance(outcome)) throw outcome;
      return outcome;
    },
    async close() {
      await mock.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * For a test file: returns `setup(entries?)`, which creates a harness that is closed after the
 * test that created it.
 */
export function useHarness(): (
  entries?: readonly TranscriptEntry[],
  mockOptions?: MockProviderOptions,
) => Promise<Harness> {
  const open: Harness[] = [];
  afterEach(async () => {
    for (const harness of open.splice(0)) await harness.close();
  });
  return async (entries, mockOptions) => {
    const harness = await createHarness(entries, mockOptions);
    open.push(harness);
    return harness;
  };
}
