import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { TranscriptChangeKind, TranscriptState } from '@keel/spec';
import { lstatIfExists, openRegularFile } from './safe-file';
import { UnsafeTranscriptPathError } from './session-fence-error';

/** Default number of trailing bytes whose digest the fence keeps. */
export const DEFAULT_TAIL_DIGEST_BYTES = 4096;
/** Default number of leading bytes (header and first entries) whose digest the fence keeps. */
export const DEFAULT_HEAD_DIGEST_BYTES = 4096;

/** How many bytes at each end of the file the fingerprint hashes. */
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
 * The state of an open transcript: identity from fstat, size, the digest of the last
 * `tailBytes` bytes and of the first `headBytes` bytes that the tail does not cover.
 */
export async function fingerprintHandle(
  handle: FileHandle,
  window: DigestWindow,
): Promise<TranscriptState> {
  const stats = await handle.stat({ bigint: true });
  const size = Number(stats.size);
  const tailLength = Math.min(size, window.tailBytes);
  const headLength = Math.min(size - tailLength, window.headBytes);
  return {
    exists: true,
    identity: `${stats.dev}:${stats.ino}`,
    size,
    tailLength,
    tailDigest: await digestRange(handle, size - tailLength, tailLength),
    headLength,
    headDigest: headLength > 0 ? await digestRange(handle, 0, headLength) : '',
  };
}

export async function fingerprintFile(
  path: string,
  window: DigestWindow,
): Promise<TranscriptState> {
  const handle = await openIfExists(path);
  if (handle === undefined) return missingState;
  try {
    return await fingerprintHandle(handle, window);
  } finally {
    await handle.close();
  }
}

/**
 * Compares the file at `path` with `expected` in O(1): identity, size, and the digests of the
 * exact byte ranges the expected state covered (its tail, and its head when it has one).
 * Timestamps and mode bits are ignored. A same-size rewrite that touches only bytes between the
 * head and the tail is not seen: finding it would mean hashing the whole file.
 */
export async function compareFile(
  path: string,
  expected: TranscriptState,
): Promise<TranscriptChangeKind | undefined> {
  const handle = await openIfExists(path);
  if (handle === undefined) return expected.exists ? 'missing' : undefined;
  try {
    if (!expected.exists) return 'appended';
    const stats = await handle.stat({ bigint: true });
    if (`${stats.dev}:${stats.ino}` !== expected.identity) return 'replaced';
    const size = Number(stats.size);
    if (size < expected.size) return 'truncated';
    const start = expected.size - expected.tailLength;
    const digest = await digestRange(handle, start, expected.tailLength);
    if (digest !== expected.tailDigest) return 'rewritten';
    const headLength = expected.headLength ?? 0;
    if (headLength > 0 && (await digestRange(handle, 0, headLength)) !== expected.headDigest)
      return 'rewritten';
    return size > expected.size ? 'appended' : undefined;
  } finally {
    await handle.close();
  }
}

async function openIfExists(path: string): Promise<FileHandle | undefined> {
  const stats = await lstatIfExists(path);
  if (stats === undefined) return undefined;
  if (stats.isSymbolicLink()) throw new UnsafeTranscriptPathError({ path, reason: 'symlink' });
  if (!stats.isFile()) throw new UnsafeTranscriptPathError({ path, reason: 'not-regular' });
  try {
    return await openRegularFile(path, constants.O_RDONLY);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function digestRange(handle: FileHandle, start: number, length: number): Promise<string> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, start + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return createHash('sha256').update(buffer.subarray(0, filled)).digest('hex');
}
