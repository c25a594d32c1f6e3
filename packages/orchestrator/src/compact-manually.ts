import type { CompactorPort, CompactResult, TranscriptEntry } from '@keel/spec';
import type { TurnRuntime } from './turn-runtime';

/** A manual compaction: its own fence, one read, the entry appended through the fence. */
export async function compactManually(
  runtime: TurnRuntime,
  compactor: CompactorPort,
  sessionId: string,
  options: { focus?: string; signal?: AbortSignal },
): Promise<CompactResult> {
  const fence = runtime.fences(sessionId);
  const signal = options.signal ?? new AbortController().signal;
  try {
    await fence.acquire({ signal });
    const entries: TranscriptEntry[] = (await runtime.storage.read(sessionId, { signal })).entries;
    return await compactor.compact({
      sessionId,
      trigger: 'manual',
      signal,
      ...(options.focus === undefined ? {} : { focus: options.focus }),
      store: {
        read: async () => ({ entries }),
        append: (_sessionId, written) => fence.append(written, { signal }),
      },
    });
  } finally {
    await fence.end().catch(() => undefined);
  }
}
