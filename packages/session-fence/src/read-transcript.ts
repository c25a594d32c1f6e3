import { constants } from 'node:fs';
import type { TranscriptChangeKind, TranscriptRead, TranscriptState } from '@keel/spec';
import { TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';
import { readableFile } from './file-system';
import { parseTranscriptLines, readHeader } from './parse-transcript-lines';
import { errorCode, openRegularFileIfExists, unsafePathError } from './safe-file';
import { UnsafeTranscriptPathError } from './session-fence-error';
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
  const path = context.transcriptPath(sessionId);
  const opened = await openRegularFileIfExists(context.fileSystem, path, constants.O_RDONLY);
  if (opened === undefined) {
    return {
      header: undefined,
      version: TRANSCRIPT_FORMAT_VERSION,
      entries: [],
      issues: [],
      exists: false,
    };
  }
  try {
    const size = Number(opened.stats.size);
    const file = readableFile(context.fileSystem, opened.fd);
    const header = await readHeader(file, size);
    const start = maxBytes === undefined ? 0 : Math.max(0, size - maxBytes);
    const parsed = await parseTranscriptLines(file, { start, end: size }, header, signal);
    return { ...parsed, exists: true };
  } finally {
    await context.fileSystem.close(opened.fd);
  }
}

/**
 * The transcript's state: open, then fstat and the reads of the ranges a state covers in
 * parallel (at the size this store saw last; read again only when the file's size moved), close.
 */
export async function transcriptState(
  context: StoreContext,
  sessionId: string,
  signal: AbortSignal | undefined,
): Promise<TranscriptState> {
  signal?.throwIfAborted();
  const { fileSystem, window } = context;
  const fd = await openForRead(context, sessionId);
  if (fd === undefined) return missingState;
  try {
    const guess = context.knownSizes.get(sessionId);
    const [stats, read] = await Promise.all([
      fileSystem.fstat(fd),
      guess === undefined
        ? undefined
        : readRanges(fileSystem, fd, guess, coveredLengths(guess, window)).catch(() => undefined),
    ]);
    assertRegular(stats, context.transcriptPath(sessionId));
    const size = Number(stats.size);
    const identity = identityOf(stats);
    const snapshot =
      read !== undefined && guess === size && !read.longer
        ? { identity, size, head: read.head, tail: read.tail }
        : await snapshotAt(fileSystem, fd, identity, size, window);
    context.rememberSize(sessionId, size);
    return stateOf(snapshot);
  } finally {
    await fileSystem.close(fd);
  }
}

/** What changed since `expected`: open, then fstat and the reads of its ranges in parallel, close. */
export async function compareTranscript(
  context: StoreContext,
  sessionId: string,
  expected: TranscriptState,
  signal: AbortSignal | undefined,
): Promise<TranscriptChangeKind | undefined> {
  signal?.throwIfAborted();
  const { fileSystem } = context;
  const fd = await openForRead(context, sessionId);
  if (fd === undefined) return changeFrom(expected, undefined, undefined);
  try {
    const [stats, read] = await Promise.all([
      fileSystem.fstat(fd),
      expected.exists
        ? readRanges(fileSystem, fd, expected.size, expectedLengths(expected)).catch(
            () => undefined,
          )
        : undefined,
    ]);
    assertRegular(stats, context.transcriptPath(sessionId));
    const current = { identity: identityOf(stats), size: Number(stats.size) };
    return changeFrom(expected, current, read);
  } finally {
    await fileSystem.close(fd);
  }
}

async function openForRead(context: StoreContext, sessionId: string): Promise<number | undefined> {
  const { O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;
  const path = context.transcriptPath(sessionId);
  try {
    return await context.fileSystem.open(path, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw unsafePathError(error, path) ?? error;
  }
}

function assertRegular(stats: { isFile(): boolean }, path: string): void {
  if (!stats.isFile()) {
    throw new UnsafeTranscriptPathError({ path, reason: 'not-regular' });
  }
}
