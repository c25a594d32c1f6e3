import { constants } from 'node:fs';
import type {
  AppendOptions,
  AppendResult,
  FlushMode,
  MessageEntry,
  SessionLease,
  TranscriptChangeKind,
  TranscriptEntry,
  TranscriptHeader,
  TranscriptState,
} from '@keel/spec';
import { TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';
import { frameBatch } from './batch-framing';
import { assertLeaseFor, leaseChange, liveLeaseOf, refusal } from './file-lease';
import { writeFully } from './file-system';
import { isRecord } from './migrate-transcript-entry';
import { mayBeTorn, repairTornTail } from './repair-torn-tail';
import { errorCode, unsafePathError } from './safe-file';
import { InvalidTranscriptEntryError } from './session-fence-error';
import type { SessionLockHandle } from './session-lock';
import { type StoreContext, serialized } from './store-context';
import type { TranscriptFile } from './transcript-files';
import {
  changeFrom,
  coveredLengths,
  expectedLengths,
  identityOf,
  type RangeRead,
  readRanges,
  type Snapshot,
  sizeChangeFrom,
  snapshotAfter,
  snapshotAt,
  snapshotOfState,
  stateOf,
} from './transcript-snapshot';
import { validateTranscriptEntry } from './validate-transcript-entry';

const { O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;
const appendFlags = constants.O_RDWR | constants.O_APPEND | O_NOFOLLOW | O_NONBLOCK;

/** Who vouches that this process may write now: a lease, a temporary lock, or nobody. */
type Guard = { lease: SessionLease } | { lock: SessionLockHandle } | undefined;

/**
 * `SessionStorage.append` for files. With a lease and/or an expected state, the checks and the
 * write happen in one hold of the session's lock (the lease's, or a temporary one) and one hold
 * of this process's queue for the transcript; a refusal throws `SessionTakeoverError` (phase
 * `write`) and writes nothing. Cost on the common path: open, then fstat with the reads of the
 * ranges the state covers (and the lease checks) in parallel, one write of the whole batch,
 * fsync, close.
 */
export async function appendEntries(
  context: StoreContext,
  sessionId: string,
  entries: readonly TranscriptEntry[],
  options: AppendOptions = {},
): Promise<AppendResult> {
  const { signal, lease, expected } = options;
  const flush = options.flush ?? 'before-return';
  signal?.throwIfAborted();
  const path = context.transcriptPath(sessionId);
  const lockPath = context.lockPath(sessionId);
  const body = serializeEntries(entries);
  if (lease !== undefined) assertLeaseFor(lease, lockPath, sessionId);
  const live = lease ?? (expected === undefined ? undefined : liveLeaseOf(lockPath));
  let temporary: SessionLockHandle | undefined;
  if (expected !== undefined && live === undefined) {
    // No lease in this process: the check and the write still need the lock, briefly.
    await context.ensureDirectory();
    // A lease this store keeps between holds would only make the lock wait for it.
    await context.kept.letGo(lockPath);
    temporary = await context
      .sessionLock(sessionId)
      .acquire({ ...(signal === undefined ? {} : { signal }) });
  }
  const guard: Guard =
    live !== undefined
      ? { lease: live }
      : temporary !== undefined
        ? { lock: temporary }
        : undefined;
  try {
    return await serialized(
      path,
      () =>
        appendUnderGuard(context, {
          sessionId,
          path,
          body,
          guard,
          expected,
          signal,
          flush,
          trusted:
            options.checkedJustBefore === true && expected !== undefined
              ? snapshotOfState(expected)
              : undefined,
        }),
      // The next append here waits for this one's deferred flush: nothing written after it is
      // acknowledged before it is durable.
      (result) => result.durable,
    );
  } finally {
    await temporary?.release();
  }
}

interface AppendJob {
  sessionId: string;
  path: string;
  body: string;
  guard: Guard;
  expected: TranscriptState | undefined;
  signal: AbortSignal | undefined;
  /**
   * `deferred`: return once written, the fsync going on (`AppendResult.durable`); `with-next`: no
   * fsync of its own (the next flushed append covers it), unless it created the file.
   */
  flush: FlushMode;
  /**
   * `expected`'s bytes, when the caller compared it with the file just before
   * (`checkedJustBefore`): the file's identity and size are compared, none of its bytes read.
   */
  trusted: Snapshot | undefined;
}

interface OpenTranscript {
  fd: number;
  identity: string;
  size: number;
  /** Ranges read with the fstat, at the size guessed before it. */
  guessed: { size: number; read: RangeRead } | undefined;
}

async function appendUnderGuard(context: StoreContext, job: AppendJob): Promise<AppendResult> {
  job.signal?.throwIfAborted();
  const known = context.knownStates.get(job.sessionId);
  const { trusted } = job;
  const guess =
    trusted !== undefined
      ? undefined
      : job.expected?.exists
        ? job.expected.size
        : known?.exists
          ? known.size
          : undefined;
  const lengths =
    job.expected?.exists === true
      ? expectedLengths(job.expected)
      : guess === undefined
        ? undefined
        : coveredLengths(guess, context.window);
  const outcome = await context.files.use(job.path, async (lent) => {
    const [guardChange, file] = await Promise.all([
      guardCheck(job.guard),
      lent === undefined ? undefined : inspectOpen(context, lent, guess, lengths),
    ]);
    if (guardChange !== undefined) throw refusal(job.sessionId, guardChange);
    if (job.expected !== undefined) {
      const change =
        trusted !== undefined
          ? sizeChangeFrom(job.expected, file)
          : expectedChange(job.expected, file);
      if (change !== undefined) throw refusal(job.sessionId, change);
    }
    if (lent === undefined || file === undefined) return 'missing' as const;
    if (!lent.writable) throw await writeRefusal(context, job.path);
    // Trusted, the file is `expected`'s (same identity and size): its bytes are the ones kept.
    const snapshot = trusted ?? (await snapshotOf(context, file));
    return writeBatch(context, job, lent, snapshot, false);
  });
  if (outcome !== 'missing') return outcome;
  const created = await createTranscript(context, job.path);
  // Someone else created it meanwhile: start again, the checks included.
  if (created === undefined) return appendUnderGuard(context, job);
  const file = context.files.adopt(job.path, created);
  try {
    return await writeBatch(context, job, file, emptySnapshot(file.fd), true);
  } finally {
    file.done();
  }
}

async function guardCheck(guard: Guard): Promise<TranscriptChangeKind | undefined> {
  if (guard === undefined) return undefined;
  // An owned write needs no look at the lock while its last look still proves it (`LockProof`).
  if ('lease' in guard) return leaseChange(guard.lease, true);
  return (await guard.lock.isHeld()) ? undefined : 'lock-lost';
}

function expectedChange(
  expected: TranscriptState,
  file: OpenTranscript | undefined,
): TranscriptChangeKind | undefined {
  if (file === undefined) return changeFrom(expected, undefined, undefined);
  const atExpected = file.guessed?.size === expected.size ? file.guessed.read : undefined;
  return changeFrom(expected, file, atExpected);
}

/** The open transcript's identity and size, with the guessed ranges read in parallel. */
async function inspectOpen(
  context: StoreContext,
  file: TranscriptFile,
  guess: number | undefined,
  lengths: { headLength: number; tailLength: number } | undefined,
): Promise<OpenTranscript> {
  const [stats, read] = await Promise.all([
    file.stats,
    guess === undefined || lengths === undefined
      ? undefined
      : readRanges(context.fileSystem, file.fd, guess, lengths).catch(() => undefined),
  ]);
  return {
    fd: file.fd,
    identity: identityOf(stats),
    size: Number(stats.size),
    guessed: guess === undefined || read === undefined ? undefined : { size: guess, read },
  };
}

/** The error opening a read-only transcript for writing gives. */
async function writeRefusal(context: StoreContext, path: string): Promise<unknown> {
  try {
    await context.fileSystem.close(await context.fileSystem.open(path, appendFlags));
    return new Error(`Cannot write ${path}`);
  } catch (error) {
    return error;
  }
}

/** Creates the transcript (and `sessionsDir` when needed); `undefined` if it appeared meanwhile. */
async function createTranscript(context: StoreContext, path: string): Promise<number | undefined> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await context.fileSystem.open(
        path,
        appendFlags | constants.O_CREAT | constants.O_EXCL,
        0o600,
      );
    } catch (error) {
      const code = errorCode(error);
      if (code === 'EEXIST') return undefined;
      if (code !== 'ENOENT' || attempt > 0) throw unsafePathError(error, path) ?? error;
      context.directoryGone();
      await context.ensureDirectory();
    }
  }
}

function emptySnapshot(fd: number): Snapshot {
  return { identity: `fd:${fd}`, size: 0, head: Buffer.alloc(0), tail: Buffer.alloc(0) };
}

/** The snapshot of the file as opened: the guessed ranges when the guess was right. */
async function snapshotOf(context: StoreContext, file: OpenTranscript): Promise<Snapshot> {
  const lengths = coveredLengths(file.size, context.window);
  const read = file.guessed?.size === file.size ? file.guessed.read : undefined;
  if (
    read !== undefined &&
    read.head.length === lengths.headLength &&
    read.tail.length === lengths.tailLength
  ) {
    return { identity: file.identity, size: file.size, head: read.head, tail: read.tail };
  }
  return snapshotAt(context.fileSystem, file.fd, file.identity, file.size, context.window);
}

async function writeBatch(
  context: StoreContext,
  job: AppendJob,
  file: TranscriptFile,
  before: Snapshot,
  created: boolean,
): Promise<AppendResult> {
  const { fileSystem } = context;
  const { fd } = file;
  let snapshot = before;
  let repaired: AppendResult['repaired'];
  let prefix = '';
  if (mayBeTorn(snapshot.tail)) {
    const repair = await repairTornTail(fileSystem, fd, snapshot.size, job.signal);
    if (repair?.kind === 'terminate') {
      prefix = '\n';
      repaired = 'terminated-last-line';
    } else if (repair?.kind === 'truncated') {
      repaired = 'dropped-torn-line';
      snapshot = await snapshotAt(fileSystem, fd, snapshot.identity, repair.size, context.window);
    }
  }
  if (created || snapshot.size === 0) prefix += headerLine(job.sessionId);
  const written = Buffer.from(prefix + job.body, 'utf8');
  if (written.length > 0) {
    try {
      await writeFully(fileSystem, fd, written);
    } catch (error) {
      // A full disk may take part of the batch: cut it off (which frees the space it took), so
      // the file is again the one every cached state describes, not a torn line to repair.
      await fileSystem.ftruncate(fd, snapshot.size).catch(() => undefined);
      throw error;
    }
  }
  let durable: Promise<void> | undefined;
  // A new file is flushed whatever was asked: its directory entry too must survive a crash.
  if (context.durable && (job.flush !== 'with-next' || created)) {
    const flushed = Promise.all([
      fileSystem.fsync(fd),
      created ? context.syncDirectory() : Promise.resolve(),
    ]).then(() => {});
    if (job.flush === 'deferred') {
      // The descriptor stays open until its fsync is done; the caller learns the end from
      // `durable` (marked handled here: a caller that never looks must not crash the process).
      file.keepUntil(flushed);
      flushed.catch(() => {});
      durable = flushed;
    } else {
      await flushed;
    }
  }
  if (created) {
    const stats = await fileSystem.fstat(fd);
    snapshot = { ...snapshot, identity: identityOf(stats) };
  }
  const after = snapshotAfter(snapshot, written, context.window);
  const state = stateOf(after, job.expected ?? context.knownStates.get(job.sessionId));
  context.rememberState(job.sessionId, state);
  return {
    state,
    ...(repaired === undefined ? {} : { repaired }),
    ...(durable === undefined ? {} : { durable }),
  };
}

function headerLine(sessionId: string): string {
  const header: TranscriptHeader = {
    type: 'header',
    version: TRANSCRIPT_FORMAT_VERSION,
    sessionId,
    createdAt: new Date().toISOString(),
  };
  return `${JSON.stringify(header)}\n`;
}

/**
 * The batch's text (see `batch-framing.ts`), each entry checked as a current-format entry first
 * (readers would skip anything else). A message without `messageId` gets its `id`, as a
 * version 1 line is migrated on read.
 */
export function serializeEntries(entries: readonly TranscriptEntry[]): string {
  const lines = entries.map((entry, index) => {
    const value =
      isRecord(entry) &&
      entry.type === 'message' &&
      (entry as Partial<MessageEntry>).messageId === undefined
        ? { ...entry, messageId: entry.id }
        : entry;
    const checked = validateTranscriptEntry(
      isRecord(value) ? (value as unknown as Record<string, unknown>) : {},
    );
    if (!checked.ok) throw new InvalidTranscriptEntryError({ index, detail: checked.detail });
    return JSON.stringify(value);
  });
  return frameBatch(lines);
}
