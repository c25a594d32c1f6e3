import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Whether this process may mount file systems (root on Linux, not in a container without
 * CAP_SYS_ADMIN): tried once, with a tiny tmpfs mounted and unmounted at once.
 */
export function canMount(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const dir = mkdtempSync(join(tmpdir(), 'keel-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A small tmpfs of its own: a real disk that fills up. */
export interface SmallDisk {
  readonly dir: string;
  /** Writes a filler file until the disk answers ENOSPC. */
  fill(): Promise<void>;
  /** Removes the filler: there is room again. */
  free(): Promise<void>;
  /** Unmounts the disk and removes its mount point. */
  remove(): void;
}

export function mountSmallDisk(sizeBytes: number): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'keel-small-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir]);
  const filler = join(dir, 'filler');
  return {
    dir,
    async fill() {
      const file = await open(filler, 'a');
      try {
        const chunk = Buffer.alloc(64 * 1024);
        for (;;) await file.write(chunk);
      } catch (error) {
        if ((error as { code?: string }).code !== 'ENOSPC') throw error;
      } finally {
        await file.close();
      }
    },
    free: () => rm(filler, { force: true }),
    remove() {
      execFileSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `dir` (a new folder) bind-mounted onto itself, switchable between read-only and read-write. */
export interface ReadOnlyDir {
  readonly dir: string;
  readOnly(on: boolean): void;
  remove(): void;
}

export function bindMountedDir(): ReadOnlyDir {
  const dir = mkdtempSync(join(tmpdir(), 'keel-ro-'));
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['--bind', dir, dir]);
  return {
    dir,
    readOnly(on) {
      execFileSync('mount', ['-o', `remount,bind,${on ? 'ro' : 'rw'}`, dir]);
    },
    remove() {
      execFileSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
