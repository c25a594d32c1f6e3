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
 * The file system calls the store and the lock make, one async request each, on raw file
 * descriptors (cheaper than `FileHandle`). Internal: tests wrap it to count requests or to inject
 * the faults a real file system produces (an NFS reply lost after the operation happened).
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

const fstatBig = promisify(
  (fd: number, callback: (error: Error | null, stats: BigIntStats) => void) =>
    fs.fstat(fd, { bigint: true }, callback),
);
const lstatBig = promisify(
  (path: string, callback: (error: Error | null, stats: BigIntStats) => void) =>
    fs.lstat(path, { bigint: true }, callback),
);
const mkdirRecursive = promisify(
  (path: string, callback: (error: Error | null, first?: string) => void) =>
    fs.mkdir(path, { recursive: true }, callback),
);
const readdirNames = promisify(
  (path: string, callback: (error: Error | null, names: string[]) => void) =>
    fs.readdir(path, callback),
);

/** The real file system. */
export const nodeFileSystem: FileSystem = {
  open: promisify(fs.open) as (path: string, flags: number, mode?: number) => Promise<number>,
  close: promisify(fs.close),
  read: (fd, buffer, offset, length, position) =>
    new Promise((resolve, reject) => {
      fs.read(fd, buffer, offset, length, position, (error, bytesRead) =>
        error ? reject(error) : resolve(bytesRead),
      );
    }),
  write: (fd, buffer, offset, length, position) =>
    new Promise((resolve, reject) => {
      fs.write(fd, buffer, offset, length, position ?? null, (error, written) =>
        error ? reject(error) : resolve(written),
      );
    }),
  fstat: fstatBig,
  fsync: promisify(fs.fsync),
  ftruncate: promisify(fs.ftruncate) as (fd: number, length: number) => Promise<void>,
  futimes: promisify(fs.futimes),
  lstat: lstatBig,
  link: promisify(fs.link),
  rename: promisify(fs.rename),
  unlink: promisify(fs.unlink),
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
): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
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
