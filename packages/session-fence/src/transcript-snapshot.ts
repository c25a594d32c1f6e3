import { createHash } from 'node:crypto';
import type { TranscriptChangeKind, TranscriptState } from '@keel/spec';
import { type FileSystem, readFully } from './file-system';

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

export function stateOf(snapshot: Snapshot): TranscriptState {
  return {
    exists: true,
    identity: snapshot.identity,
    size: snapshot.size,
    tailLength: snapshot.tail.length,
    tailDigest: digest(snapshot.tail),
    headLength: snapshot.head.length,
    headDigest: snapshot.head.length > 0 ? digest(snapshot.head) : '',
  };
}

/** Files up to this size are read whole in one request instead of two ranges. */
const WHOLE_FILE_READ_BYTES = 64 * 1024;

/** The bytes at given head and tail lengths of a file assumed `size` bytes long (both read at once). */
export interface RangeRead {
  head: Buffer;
  tail: Buffer;
  /** The file has at least one byte past `size`. */
  longer: boolean;
}

/** Reads the first `headLength` bytes and the `tailLength` bytes before `size`, in parallel. */
export async function readRanges(
  fileSystem: FileSystem,
  fd: number,
  size: number,
  lengths: { headLength: number; tailLength: number },
): Promise<RangeRead> {
  if (size <= WHOLE_FILE_READ_BYTES) {
    // One request for a small file: all of it, and one byte more.
    const whole = await readFully(fileSystem, fd, 0, size + 1);
    return {
      head: whole.subarray(0, Math.min(lengths.headLength, whole.length)),
      tail: whole.subarray(Math.max(0, size - lengths.tailLength), Math.min(size, whole.length)),
      longer: whole.length > size,
    };
  }
  const [head, tailAndNext] = await Promise.all([
    lengths.headLength > 0
      ? readFully(fileSystem, fd, 0, lengths.headLength)
      : Promise.resolve(Buffer.alloc(0)),
    readFully(fileSystem, fd, size - lengths.tailLength, lengths.tailLength + 1),
  ]);
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
  if (current === undefined) return expected.exists ? 'missing' : undefined;
  if (!expected.exists) return 'appended';
  if (current.identity !== expected.identity) return 'replaced';
  if (current.size < expected.size) return 'truncated';
  if (atExpected === undefined || atExpected.tail.length !== expected.tailLength)
    return 'truncated';
  if (digest(atExpected.tail) !== expected.tailDigest) return 'rewritten';
  const headLength = expected.headLength ?? 0;
  if (headLength > 0 && digest(atExpected.head) !== expected.headDigest) return 'rewritten';
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
