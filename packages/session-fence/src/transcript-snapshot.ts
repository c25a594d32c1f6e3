import { createHash } from 'node:crypto';
import type { TranscriptChangeKind, TranscriptState } from '@keel/spec';
import { type FileSystem, readFully, SYNC_IO_BYTES } from './file-system';
import { transientBytes } from './transient-bytes';

/** Default number of trailing bytes whose digest the fence keeps. */
export const DEFAULT_TAIL_DIGEST_BYTES = 4096;
/** Default number of leading bytes (header and first entries) whose digest the fence keeps. */
export const DEFAULT_HEAD_DIGEST_BYTES = 4096;

/** How many bytes at each end of the file a state covers. */
export interface DigestWindow {
  tailBytes: number;
  headBytes: number;
}

export const missingState: TranscriptState = {
  exists: false,
  identity: '',
  size: 0,
  tailLength: 0,
  tailDigest: '',
};

/**
 * What a state is computed from: the file's identity and size, its last `tailLength` bytes and
 * its first `headLength` bytes outside them. When the file is no longer than both windows
 * together, `head` followed by `tail` is the whole file.
 */
export interface Snapshot {
  identity: string;
  size: number;
  head: Buffer;
  tail: Buffer;
}

/** The ranges a state of a `size`-byte file covers. */
export function coveredLengths(
  size: number,
  window: DigestWindow,
): { tailLength: number; headLength: number } {
  const tailLength = Math.min(size, window.tailBytes);
  return { tailLength, headLength: Math.min(size - tailLength, window.headBytes) };
}

export function identityOf(stats: { dev: bigint; ino: bigint }): string {
  return `${stats.dev}:${stats.ino}`;
}

function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Bytes whose digest this process computed lately, by digest. A check whose bytes equal the
 * bytes a digest was computed from (a `memcmp`) needs no hashing: a turn's states mostly cover
 * bytes seen before (the head never moves once the file outgrows it; a state is compared with
 * the bytes it was taken from). Bounded in entries and in the bytes kept per entry.
 */
const knownDigests = new Map<string, Buffer>();
const MAX_KNOWN_DIGESTS = 512;
const MAX_KNOWN_DIGEST_BYTES = 16 * 1024;

function remember(value: string, bytes: Uint8Array): void {
  if (bytes.length > MAX_KNOWN_DIGEST_BYTES) return;
  knownDigests.delete(value);
  knownDigests.set(value, Buffer.from(bytes));
  if (knownDigests.size > MAX_KNOWN_DIGESTS) {
    const oldest = knownDigests.keys().next().value;
    if (oldest !== undefined) knownDigests.delete(oldest);
  }
}

/**
 * The snapshot `state` was taken from, from the bytes this process keeps for its digests;
 * `undefined` when it keeps them no longer (the file is then read).
 */
export function snapshotOfState(state: TranscriptState): Snapshot | undefined {
  if (!state.exists) return undefined;
  const tail = state.tailLength === 0 ? Buffer.alloc(0) : knownDigests.get(state.tailDigest);
  const headLength = state.headLength ?? 0;
  const head = headLength === 0 ? Buffer.alloc(0) : knownDigests.get(state.headDigest ?? '');
  if (tail?.length !== state.tailLength || head?.length !== headLength) return undefined;
  return { identity: state.identity, size: state.size, head, tail };
}

/** Whether `bytes` has the digest `expected`, without hashing when they are bytes seen before. */
function hasDigest(bytes: Uint8Array, expected: string): boolean {
  if (knownDigests.get(expected)?.equals(bytes)) return true;
  const actual = digest(bytes);
  if (actual !== expected) return false;
  remember(actual, bytes);
  return true;
}

/** The digest of `bytes`; `hint`, a digest they may have (an earlier state's), spares the hashing. */
function digestOf(bytes: Uint8Array, hint: string | undefined): string {
  if (hint !== undefined && knownDigests.get(hint)?.equals(bytes)) return hint;
  const value = digest(bytes);
  remember(value, bytes);
  return value;
}

/** The state of `snapshot`; `earlier`, a state of the same transcript, may spare the hashing. */
export function stateOf(snapshot: Snapshot, earlier?: TranscriptState): TranscriptState {
  return {
    exists: true,
    identity: snapshot.identity,
    size: snapshot.size,
    tailLength: snapshot.tail.length,
    tailDigest: digestOf(snapshot.tail, earlier?.tailDigest),
    headLength: snapshot.head.length,
    headDigest: snapshot.head.length > 0 ? digestOf(snapshot.head, earlier?.headDigest) : '',
  };
}

/** Files this small are read whole in one call instead of two ranges (a synchronous read). */
const WHOLE_FILE_READ_BYTES = SYNC_IO_BYTES - 1;

/** The bytes at given head and tail lengths of a file assumed `size` bytes long (both read at once). */
export interface RangeRead {
  head: Buffer;
  tail: Buffer;
  /** The file has at least one byte past `size`. */
  longer: boolean;
}

/**
 * Reads the first `headLength` bytes and the `tailLength` bytes before `size`, into transient
 * bytes (`transientBytes`): a caller that keeps them copies them (`remember` does).
 */
export async function readRanges(
  fileSystem: FileSystem,
  fd: number,
  size: number,
  lengths: { headLength: number; tailLength: number },
): Promise<RangeRead> {
  if (size <= WHOLE_FILE_READ_BYTES) {
    // One request for a small file: all of it, and one byte more.
    const whole = await readFully(fileSystem, fd, 0, size + 1, transientBytes(size + 1));
    return {
      head: whole.subarray(0, Math.min(lengths.headLength, whole.length)),
      tail: whole.subarray(Math.max(0, size - lengths.tailLength), Math.min(size, whole.length)),
      longer: whole.length > size,
    };
  }
  const readHead = () =>
    lengths.headLength > 0
      ? readFully(fileSystem, fd, 0, lengths.headLength, transientBytes(lengths.headLength))
      : Promise.resolve(Buffer.alloc(0));
  const readTail = () =>
    readFully(
      fileSystem,
      fd,
      size - lengths.tailLength,
      lengths.tailLength + 1,
      transientBytes(lengths.tailLength + 1),
    );
  // Reads this small are synchronous (`SYNC_IO_BYTES`): one after the other, without a
  // `Promise.all`; larger windows are read in parallel.
  const [head, tailAndNext] =
    lengths.headLength + lengths.tailLength + 1 <= SYNC_IO_BYTES
      ? [await readHead(), await readTail()]
      : await Promise.all([readHead(), readTail()]);
  return {
    head,
    tail: tailAndNext.subarray(0, lengths.tailLength),
    longer: tailAndNext.length > lengths.tailLength,
  };
}

/** The snapshot of an open file of known size. */
export async function snapshotAt(
  fileSystem: FileSystem,
  fd: number,
  identity: string,
  size: number,
  window: DigestWindow,
): Promise<Snapshot> {
  const read = await readRanges(fileSystem, fd, size, coveredLengths(size, window));
  return { identity, size, head: read.head, tail: read.tail };
}

/**
 * What changed between `expected` and a file with `identity` and `size`, given the bytes read at
 * the expected state's own ranges. Identity, then size, then the digests of exactly the ranges the
 * expected state covered. Timestamps and mode bits are ignored. A same-size rewrite that touches
 * only bytes between the head and the tail is not seen: finding it would mean hashing the file.
 */
export function changeFrom(
  expected: TranscriptState,
  current: { identity: string; size: number } | undefined,
  atExpected: RangeRead | undefined,
): TranscriptChangeKind | undefined {
  const bySize = sizeChangeFrom(expected, current);
  // Grown or not, the bytes the expected state covered are compared first (`rewritten` wins).
  if (current === undefined || !expected.exists || (bySize !== undefined && bySize !== 'appended'))
    return bySize;
  if (atExpected === undefined || atExpected.tail.length !== expected.tailLength)
    return 'truncated';
  if (!hasDigest(atExpected.tail, expected.tailDigest)) return 'rewritten';
  const headLength = expected.headLength ?? 0;
  if (headLength > 0 && !hasDigest(atExpected.head, expected.headDigest ?? '')) return 'rewritten';
  return bySize;
}

/**
 * `changeFrom` without the bytes: what identity and size alone show (an owned write right after
 * the caller's own comparison, `AppendOptions.checkedJustBefore`).
 */
export function sizeChangeFrom(
  expected: TranscriptState,
  current: { identity: string; size: number } | undefined,
): TranscriptChangeKind | undefined {
  if (current === undefined) return expected.exists ? 'missing' : undefined;
  if (!expected.exists) return 'appended';
  if (current.identity !== expected.identity) return 'replaced';
  if (current.size < expected.size) return 'truncated';
  return current.size > expected.size ? 'appended' : undefined;
}

/** The ranges `expected` covered, to read in one go with the file's fstat. */
export function expectedLengths(expected: TranscriptState): {
  headLength: number;
  tailLength: number;
} {
  return { headLength: expected.headLength ?? 0, tailLength: expected.tailLength };
}

/** The snapshot after `written` was appended to a file whose snapshot was `before`. */
export function snapshotAfter(before: Snapshot, written: Buffer, window: DigestWindow): Snapshot {
  const size = before.size + written.length;
  const { tailLength, headLength } = coveredLengths(size, window);
  if (before.head.length + before.tail.length === before.size) {
    // The whole previous file is known: both new ranges come from it and `written`.
    const whole =
      before.head.length === 0 ? before.tail : Buffer.concat([before.head, before.tail]);
    return {
      identity: before.identity,
      size,
      head: sliceOfBoth(whole, written, 0, headLength),
      tail: sliceOfBoth(whole, written, size - tailLength, size),
    };
  }
  // The file was longer than both windows: the head range is full and does not move.
  const tailStart = before.size - before.tail.length;
  return {
    identity: before.identity,
    size,
    head: before.head,
    tail: sliceOfBoth(before.tail, written, size - tailLength - tailStart, size - tailStart),
  };
}

/** Bytes `start` to `end` of `first` followed by `second`, copying only what the range holds. */
function sliceOfBoth(first: Buffer, second: Buffer, start: number, end: number): Buffer {
  if (start >= first.length) return second.subarray(start - first.length, end - first.length);
  if (end <= first.length) return first.subarray(start, end);
  return Buffer.concat([first.subarray(start), second.subarray(0, end - first.length)]);
}
