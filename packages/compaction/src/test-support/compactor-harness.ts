import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockProvider, MockProviderOptions } from '@keel/testing';
import { createMockProvider } from '@keel/testing';
import type { CompactionEvent } from '../compaction-events';
import type { TranscriptEntry } from '../types';
import type { FileTranscriptStore } from './file-transcript-store';
import { createFileTranscriptStore, writeTranscriptFile } from './file-transcript-store';
import { structuredSummaryReply } from './summary-reply';

export interface Harness {
  mock: MockProvider;
  store: FileTranscriptStore;
  events: CompactionEvent[];
  onEvent: (event: CompactionEvent) => void;
  /** The transcript file's bytes now. */
  bytes(): Promise<Buffer>;
  close(): Promise<void>;
}

/** A real JSONL transcript in a temp dir, and the loopback provider answering as a summarizer. */
export async function createHarness(
  entries: readonly TranscriptEntry[],
  mockOptions: MockProviderOptions = {},
): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'keel-compaction-'));
  const path = join(dir, 's-1.jsonl');
  await writeTranscriptFile(path, entries);
  const mock = await createMockProvider({ defaultReply: structuredSummaryReply, ...mockOptions });
  const events: CompactionEvent[] = [];
  return {
    mock,
    store: createFileTranscriptStore(path),
    events,
    onEvent: (event) => events.push(event),
    bytes: () => readFile(path),
    async close() {
      await mock.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
