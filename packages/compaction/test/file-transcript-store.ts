import { appendFile, readFile, writeFile } from 'node:fs/promises';
import type { CompactionStore, TranscriptEntry } from '@keel/spec';

/**
 * A minimal JSONL transcript on a real file (header line, then one entry per line), standing in
 * for `@keel/session-fence`'s store in this package's tests.
 */
export interface FileTranscriptStore extends CompactionStore {
  readonly path: string;
  appendCount(): number;
}

export async function writeTranscriptFile(
  path: string,
  entries: readonly TranscriptEntry[],
): Promise<void> {
  const header = {
    type: 'header',
    version: 2,
    sessionId: 's-1',
    createdAt: '2026-01-01T00:00:00.000Z',
  };
  const lines = [header, ...entries].map((entry) => `${JSON.stringify(entry)}\n`);
  await writeFile(path, lines.join(''));
}

export function createFileTranscriptStore(path: string): FileTranscriptStore {
  let appends = 0;
  return {
    path,
    appendCount: () => appends,
    async read(_sessionId, options) {
      options?.signal?.throwIfAborted();
      const text = await readFile(path, 'utf8');
      const entries = text
        .split('\n')
        .filter((line) => line.trim().length > 0)
        .map((line) => JSON.parse(line) as TranscriptEntry | { type: 'header' })
        .filter((entry): entry is TranscriptEntry => entry.type !== 'header');
      return { entries };
    },
    async append(_sessionId, entries, options) {
      options?.signal?.throwIfAborted();
      appends += 1;
      await appendFile(path, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    },
  };
}
