import type { TranscriptChangeKind, TranscriptRead, TranscriptState } from '@keel/spec';
import { TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';
import { readableFile } from './file-system';
import { parseTranscriptLines, readHeader } from './parse-transcript-lines';
import type { StoreContext } from './store-context';
import {
  changeFrom,
  coveredLengths,
  expectedLengths,
  identityOf,
  missingState,
  readRanges,
  snapshotAt,
  stateOf,
} from './transcript-snapshot';

/** Every entry from byte `size - maxBytes` on (all of them without `maxBytes`), migrated. */
export async function readTranscript(
  context: StoreContext,
  sessionId: string,
  maxBytes: number | undefined,
  signal: AbortSignal | undefined,
): Promise<TranscriptRead> {
  signal?.throwIfAborted();
  return context.files.use(context.transcriptPath(sessionId), async (opened) => {
    if (opened === undefined) {
      return {
        header: undefined,
        version: TRANSCRIPT_FORMAT_VERSION,
        entries: [],
        issues: [],
        exists: false,
      };
    }
    const size = Number((await opened.stats).size);
    const file = readableFile(context.fileSystem, opened.fd);
    const header = await readHeader(file, size);
    const start = maxBytes === undefined ? 0 : Math.max(0, size - maxBytes);
    const parsed = await parseTranscriptLines(file, { start, end: size }, header, signal);
    return { ...parsed, exists: true };
  });
}

/**
 * The entries appended after `since` (`SessionStorage.readSince`): the fstat and the reads of the
 * ranges `since` covered, compared as `compare` does, then the lines from `since.size` on. A state
 * that ends inside a line (a torn write it saw) is not read from: `undefined`, read whole.
 */
export async function readTranscriptSince(
  context: StoreContext,
  sessionId: string,
  since: TranscriptState,
  signal: AbortSignal | undefined,
): Promise<TranscriptRead | undefined> {
  signal?.throwIfAborted();
  if (!since.exists) return undefined;
  const { fileSystem } = context;
  return context.files.use(context.transcriptPath(sessionId), async (opened) => {
    if (opened === undefined) return undefined;
    const [stats, atSince] = await Promise.all([
      opened.stats,
      readRanges(fileSystem, opened.fd, since.size, expectedLengths(since)).catch(() => undefined),
    ]);
    const size = Number(stats.size);
    const change = changeFrom(since, { identity: identityOf(stats), size }, atSince);
    if (change !== undefined && change !== 'appended') return undefined;
    if (since.size > 0 && atSince?.tail.at(-1) !== NEWLINE) return undefined;
    const file = readableFile(fileSystem, opened.fd);
    const header = await readHeader(file, size);
    const parsed = await parseTranscriptLines(
      file,
      { start: since.size, end: size },
      header,
      signal,
    );
    return { ...parsed, exists: true };
  });
}

const NEWLINE = 0x0a;

/**
 * The transcript's state: the fstat (with the lstat that proves a kept descriptor current) and
 * the reads of the ranges a state covers, in parallel, at the size this store saw last; read
 * again only when the file's size moved.
 */
export async function transcriptState(
  context: StoreContext,
  sessionId: string,
  signal: AbortSignal | undefined,
): Promise<TranscriptState> {
  signal?.throwIfAborted();
  const { fileSystem, window } = context;
  return context.files.use(context.transcriptPath(sessionId), async (file) => {
    if (file === undefined) return missingState;
    const known = context.knownStates.get(sessionId);
    const guess = known?.exists ? known.size : undefined;
    const [stats, read] = await Promise.all([
      file.stats,
      guess === undefined
        ? undefined
        : readRanges(fileSystem, file.fd, guess, coveredLengths(guess, window)).catch(
            () => undefined,
          ),
    ]);
    const size = Number(stats.size);
    const identity = identityOf(stats);
    const snapshot =
      read !== undefined && guess === size && !read.longer
        ? { identity, size, head: read.head, tail: read.tail }
        : await snapshotAt(fileSystem, file.fd, identity, size, window);
    const state = stateOf(snapshot, known);
    context.rememberState(sessionId, state);
    return state;
  });
}

/** What changed since `expected`: the fstat and the reads of its ranges, in parallel. */
export async function compareTranscript(
  context: StoreContext,
  sessionId: string,
  expected: TranscriptState,
  signal: AbortSignal | undefined,
): Promise<TranscriptChangeKind | undefined> {
  signal?.throwIfAborted();
  const { fileSystem } = context;
  return context.files.use(context.transcriptPath(sessionId), async (file) => {
    if (file === undefined) return changeFrom(expected, undefined, undefined);
    const [stats, read] = await Promise.all([
      file.stats,
      expected.exists
        ? readRanges(fileSystem, file.fd, expected.size, expectedLengths(expected)).catch(
            () => undefined,
          )
        : undefined,
    ]);
    return changeFrom(expected, { identity: identityOf(stats), size: Number(stats.size) }, read);
  });
}
