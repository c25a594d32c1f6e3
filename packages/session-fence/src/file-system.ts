import type { BigIntStats } from 'node:fs';
import * as fs from 'node:fs';
import { promisify } from 'node:util';

/** Something bytes can be read from at a position: an open file. */
export interface ReadableFile {
  read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesRead: number }>;
}

/**
 * The file system calls the store and the lock make, on raw file descriptors (cheaper than
 * `FileHandle`), each behind a promise (`nodeFileSystem` says which really run asynchronously).
 * Internal: tests wrap it to count requests or to inject the faults a real file system produces
 * (an NFS reply lost after the operation happened).
 */
export interface FileSystem {
  open(path: string, flags: number, mode?: number): Promise<number>;
  close(fd: number): Promise<void>;
  read(
    fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<number>;
  /** Writes at the end for an `O_APPEND` descriptor, else at `position`. Returns bytes written. */
  write(
    fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position?: number,
  ): Promise<number>;
  fstat(fd: number): Promise<BigIntStats>;
  fsync(fd: number): Promise<void>;
  ftruncate(fd: number, length: number): Promise<void>;
  futimes(fd: number, atime: Date, mtime: Date): Promise<void>;
  lstat(path: string): Promise<BigIntStats>;
  link(existing: string, created: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** `mkdir -p`; the first directory it created, or `undefined` when all existed. */
  mkdir(path: string): Promise<string | undefined>;
  readdir(path: string): Promise<string[]>;
}

const mkdirRecursive = promisify(
  (path: string, callback: (error: Error | null, first?: string) => void) =>
    fs.mkdir(path, { recursive: true }, callback),
);
const readdirNames = promisify(
  (path: string, callback: (error: Error | null, names: string[]) => void) =>
    fs.readdir(path, callback),
);

/**
 * Reads and writes up to this many bytes run synchronously (see `nodeFileSystem`); larger ones
 * go to the thread pool, so a long scan still yields to the event loop (and sees an abort) between
 * its chunks.
 */
export const SYNC_IO_BYTES = 16 * 1024;

/** Runs `call` now and hands its result (or error) over as a settled promise. */
function now<T>(call: () => T): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * The real file system.
 *
 * Why most calls are synchronous: an async `fs` call is a round trip through libuv's thread pool
 * (queue the request, wake a worker thread, run the system call there, post the result back,
 * wake the event loop). On a busy machine that round trip costs 50–200 µs, while the system
 * calls the store and the lock make are metadata operations on a few files that the kernel
 * answers from its caches in 2–10 µs (an lstat, a 4 KiB read, a 40-byte write, a futimes). A
 * turn makes dozens of them, so the round trips, not the work, were most of a turn's cost (the
 * `session-fence-durability` row in `bench/` measures both). `link`, `rename` and `unlink`
 * change a directory in 20–60 µs on ext4 and stay synchronous too.
 *
 * What stays asynchronous: `fsync` (milliseconds on real disks: never on the event loop); an
 * `O_CREAT` open (allocating an inode waits for the journal, up to a millisecond or more while
 * other writers fsync; it happens once per new transcript, counter or lock file); reads and
 * writes above `SYNC_IO_BYTES` (a long scan yields between chunks); `mkdir` and `readdir` (rare,
 * and unbounded in size). On a network file system a metadata call can take a network round
 * trip; a store there blocks the event loop for it (use a local `sessionsDir`).
 */
export const nodeFileSystem: FileSystem = {
  open: (path, flags, mode) =>
    (flags & fs.constants.O_CREAT) === 0
      ? now(() => fs.openSync(path, flags, mode))
      : new Promise((resolve, reject) => {
          fs.open(path, flags, mode, (error, fd) => (error ? reject(error) : resolve(fd)));
        }),
  close: (fd) => now(() => fs.closeSync(fd)),
  read: (fd, buffer, offset, length, position) =>
    length <= SYNC_IO_BYTES
      ? now(() => fs.readSync(fd, buffer, offset, length, position))
      : new Promise((resolve, reject) => {
          fs.read(fd, buffer, offset, length, position, (error, bytesRead) =>
            error ? reject(error) : resolve(bytesRead),
          );
        }),
  write: (fd, buffer, offset, length, position) =>
    length <= SYNC_IO_BYTES
      ? now(() => fs.writeSync(fd, buffer, offset, length, position ?? null))
      : new Promise((resolve, reject) => {
          fs.write(fd, buffer, offset, length, position ?? null, (error, written) =>
            error ? reject(error) : resolve(written),
          );
        }),
  fstat: (fd) => now(() => fs.fstatSync(fd, { bigint: true })),
  fsync: promisify(fs.fsync),
  ftruncate: (fd, length) => now(() => fs.ftruncateSync(fd, length)),
  futimes: (fd, atime, mtime) => now(() => fs.futimesSync(fd, atime, mtime)),
  lstat: (path) => now(() => fs.lstatSync(path, { bigint: true })),
  link: (existing, created) => now(() => fs.linkSync(existing, created)),
  rename: (from, to) => now(() => fs.renameSync(from, to)),
  unlink: (path) => now(() => fs.unlinkSync(path)),
  mkdir: mkdirRecursive,
  readdir: readdirNames,
};

/** An open descriptor as a `ReadableFile`. */
export function readableFile(fileSystem: FileSystem, fd: number): ReadableFile {
  return {
    read: async (buffer, offset, length, position) => ({
      bytesRead: await fileSystem.read(fd, buffer, offset, length, position),
    }),
  };
}

/**
 * Reads up to `length` bytes at `position` in one request: for a regular file, a read returns
 * fewer bytes than asked only at the end of the file, so a short read is not retried.
 */
export async function readFully(
  fileSystem: FileSystem,
  fd: number,
  position: number,
  length: number,
  /** Where to read (at least `length` bytes); default a new buffer. */
  into?: Buffer,
): Promise<Buffer> {
  const buffer = into ?? Buffer.allocUnsafe(length);
  const filled = length === 0 ? 0 : await fileSystem.read(fd, buffer, 0, length, position);
  return filled === length ? buffer : buffer.subarray(0, filled);
}

/** Writes all of `buffer` (at the end for an `O_APPEND` descriptor). */
export async function writeFully(
  fileSystem: FileSystem,
  fd: number,
  buffer: Uint8Array,
  position?: number,
): Promise<void> {
  let written = 0;
  while (written < buffer.length) {
    written += await fileSystem.write(
      fd,
      buffer,
      written,
      buffer.length - written,
      position === undefined ? undefined : position + written,
    );
  }
}
