import { constants } from 'node:fs';
import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AppendResult, TranscriptRead } from '@keel/spec';
import {
  type MessageEntry,
  TRANSCRIPT_FORMAT_VERSION,
  type TranscriptEntry,
  type TranscriptHeader,
} from '@keel/spec';
import { isRecord } from './migrate-transcript-entry';
import { parseHeader, parseTranscriptLines, readHeader } from './parse-transcript-lines';
import { readLines } from './read-lines';
import { errorCode, lstatIfExists, openRegularFile } from './safe-file';
import { InvalidTranscriptEntryError, UnsafeTranscriptPathError } from './session-fence-error';
import { assertValidSessionId } from './session-id';
import { createSessionLock, type SessionLockOptions } from './session-lock';
import type { LockingSessionStorage as SessionStorage } from './session-storage';
import {
  compareFile,
  DEFAULT_HEAD_DIGEST_BYTES,
  DEFAULT_TAIL_DIGEST_BYTES,
  fingerprintFile,
  fingerprintHandle,
} from './transcript-fingerprint';
import { validateTranscriptEntry } from './validate-transcript-entry';

export interface TranscriptStoreOptions {
  /** Directory holding `<sessionId>.jsonl` and `<sessionId>.lock`; created on first append. */
  sessionsDir: string;
  /** `fsync` the file after every append (and the directory after creating a file); default true. */
  fsync?: boolean;
  /** Lock settings shared by every session of this store. */
  lock?: Omit<SessionLockOptions, 'path'>;
  /** Bytes at the end of the file covered by the fence digest; default 4096. */
  tailDigestBytes?: number;
  /** Bytes at the start of the file (outside the tail) covered by the fence digest; default 4096. */
  headDigestBytes?: number;
}

/** The file-backed `SessionStorage`, plus the paths it uses. */
export interface TranscriptStore extends SessionStorage {
  readonly sessionsDir: string;
  /** `<sessionsDir>/<sessionId>.jsonl`, after validating the id (never escapes `sessionsDir`). */
  transcriptPath(sessionId: string): string;
  lockPath(sessionId: string): string;
}

const DEFAULT_TAIL_READ_BYTES = 1024 * 1024;

/** Creates the file-backed transcript store: one append-only JSONL file per session. */
export function createTranscriptStore(options: TranscriptStoreOptions): TranscriptStore {
  const sessionsDir = resolve(options.sessionsDir);
  const durable = options.fsync ?? true;
  const digestWindow = {
    tailBytes: options.tailDigestBytes ?? DEFAULT_TAIL_DIGEST_BYTES,
    headBytes: options.headDigestBytes ?? DEFAULT_HEAD_DIGEST_BYTES,
  };

  const transcriptPath = (sessionId: string): string => {
    assertValidSessionId(sessionId);
    return join(sessionsDir, `${sessionId}.jsonl`);
  };
  const lockPath = (sessionId: string): string => {
    assertValidSessionId(sessionId);
    return join(sessionsDir, `${sessionId}.lock`);
  };

  async function readRange(
    sessionId: string,
    maxBytes: number | undefined,
    signal?: AbortSignal,
  ): Promise<TranscriptRead> {
    signal?.throwIfAborted();
    const path = transcriptPath(sessionId);
    const stats = await lstatIfExists(path);
    if (stats === undefined)
      return {
        header: undefined,
        version: TRANSCRIPT_FORMAT_VERSION,
        entries: [],
        issues: [],
        exists: false,
      };
    if (stats.isSymbolicLink()) throw new UnsafeTranscriptPathError({ path, reason: 'symlink' });
    const handle = await openRegularFile(path, constants.O_RDONLY);
    try {
      const size = (await handle.stat()).size;
      const header = await readHeader(handle, size);
      const start = maxBytes === undefined ? 0 : Math.max(0, size - maxBytes);
      const parsed = await parseTranscriptLines(handle, { start, end: size }, header);
      signal?.throwIfAborted();
      return { ...parsed, exists: true };
    } finally {
      await handle.close();
    }
  }

  return {
    sessionsDir,
    transcriptPath,
    lockPath,

    async append(sessionId, entries, callOptions = {}): Promise<AppendResult> {
      callOptions.signal?.throwIfAborted();
      const path = transcriptPath(sessionId);
      const lines = serializeEntries(entries);
      await mkdir(sessionsDir, { recursive: true });
      const handle = await openRegularFile(
        path,
        constants.O_RDWR | constants.O_APPEND | constants.O_CREAT,
      );
      try {
        const size = (await handle.stat()).size;
        const repaired = size > 0 ? await repairTornTail(handle, size) : undefined;
        let text = '';
        if (size === 0) {
          const header: TranscriptHeader = {
            type: 'header',
            version: TRANSCRIPT_FORMAT_VERSION,
            sessionId,
            createdAt: new Date().toISOString(),
          };
          text += `${JSON.stringify(header)}\n`;
        }
        text += lines;
        await writeAll(handle, Buffer.from(text, 'utf8'));
        if (durable) {
          await handle.sync();
          if (size === 0) await syncDirectory(sessionsDir);
        }
        const state = await fingerprintHandle(handle, digestWindow);
        return repaired === undefined ? { state } : { state, repaired };
      } finally {
        await handle.close();
      }
    },

    read(sessionId, callOptions = {}) {
      return readRange(sessionId, undefined, callOptions.signal);
    },

    readTail(sessionId, callOptions = {}) {
      return readRange(
        sessionId,
        callOptions.maxBytes ?? DEFAULT_TAIL_READ_BYTES,
        callOptions.signal,
      );
    },

    async lock(sessionId, acquireOptions) {
      const path = lockPath(sessionId);
      await mkdir(sessionsDir, { recursive: true });
      return createSessionLock({ ...options.lock, path }).acquire(acquireOptions);
    },

    async state(sessionId, callOptions = {}) {
      callOptions.signal?.throwIfAborted();
      return fingerprintFile(transcriptPath(sessionId), digestWindow);
    },

    async compare(sessionId, expected, callOptions = {}) {
      callOptions.signal?.throwIfAborted();
      return compareFile(transcriptPath(sessionId), expected);
    },
  };
}

/**
 * A file that does not end in `\n` was cut mid-write. If its last line is complete JSON it only
 * lacks the newline, which is added; otherwise the partial line is cut off. Only that unfinished
 * last line is touched, never a complete one.
 */
async function repairTornTail(
  handle: FileHandle,
  size: number,
): Promise<AppendResult['repaired'] | undefined> {
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  if (last[0] === 0x0a) return undefined;
  let torn: { text: string; offset: number } | undefined;
  const start = Math.max(0, size - 1024 * 1024);
  for await (const line of readLines(handle, { start, end: size })) {
    if (!line.terminated) torn = line;
  }
  if (torn !== undefined && isCompleteJson(torn.text)) {
    await writeAll(handle, Buffer.from('\n'));
    return 'terminated-last-line';
  }
  const cutAt = torn?.offset ?? (await findLastNewline(handle, size)) + 1;
  await handle.truncate(cutAt);
  return 'dropped-torn-line';
}

function isCompleteJson(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return (
      typeof value === 'object' &&
      value !== null &&
      (parseHeader(text) !== undefined || 'type' in value)
    );
  } catch {
    return false;
  }
}

async function findLastNewline(handle: FileHandle, size: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const { bytesRead } = await handle.read(chunk, 0, end - start, start);
    const index = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (index !== -1) return start + index;
    end = start;
  }
  return -1;
}

async function writeAll(handle: FileHandle, buffer: Buffer): Promise<void> {
  let written = 0;
  while (written < buffer.length) {
    const result = await handle.write(buffer, written, buffer.length - written);
    written += result.bytesWritten;
  }
}

async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(directory, constants.O_RDONLY);
    await handle.sync();
  } catch (error) {
    // Some platforms and file systems refuse fsync on a directory; the file itself is synced.
    if (
      errorCode(error) !== 'EISDIR' &&
      errorCode(error) !== 'EINVAL' &&
      errorCode(error) !== 'EPERM'
    )
      throw error;
  } finally {
    await handle?.close();
  }
}

/**
 * One line per entry, each checked as a current-format entry first (readers would skip anything
 * else). A message without `messageId` gets its `id`, as a version 1 line is migrated on read.
 */
function serializeEntries(entries: readonly TranscriptEntry[]): string {
  let text = '';
  entries.forEach((entry, index) => {
    const value =
      entry.type === 'message' && (entry as Partial<MessageEntry>).messageId === undefined
        ? { ...entry, messageId: entry.id }
        : entry;
    const checked = validateTranscriptEntry(
      isRecord(value) ? (value as unknown as Record<string, unknown>) : {},
    );
    if (!checked.ok) throw new InvalidTranscriptEntryError({ index, detail: checked.detail });
    text += `${JSON.stringify(value)}\n`;
  });
  return text;
}
