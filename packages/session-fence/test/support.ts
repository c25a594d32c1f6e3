/** Helpers shared by this package's tests (not exported from the package). */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MessageEntry } from '@keel/spec';
import { afterEach, beforeEach } from 'vitest';
import { type FileSystem, nodeFileSystem } from '../src/file-system';

/** Absolute file URL of this package's built entry, for child processes. */
export const distUrl = new URL('../dist/index.js', import.meta.url).href;

/**
 * The real Claude Code fixtures beside the repository (never copied into it), or under
 * `$KEEL_SHARED_DIR` when the checkout is not beside `shared/` (a worktree). Throws when the
 * fixture is absent, so a missing `../shared` fails loudly instead of reading as "no orphans".
 */
export function fixturePath(name: string): string {
  const shared = process.env['KEEL_SHARED_DIR'];
  const path =
    shared !== undefined && shared !== ''
      ? join(shared, 'fixtures', 'claude-transcripts', name)
      : fileURLToPath(
          new URL(`../../../../shared/fixtures/claude-transcripts/${name}`, import.meta.url),
        );
  if (!existsSync(path)) {
    throw new Error(
      `fixture ${name} not found at ${path}: the shared/ folder must sit beside the repository`,
    );
  }
  return path;
}

export async function makeTempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'keel-session-fence-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Gives every test of the calling file a fresh temp dir, removed after the test (after the
 * file's own `afterEach` hooks, which run first). Read `path` inside a test or hook.
 */
export function useTempDir(): { readonly path: string } {
  let current: { dir: string; cleanup: () => Promise<void> } | undefined;
  beforeEach(async () => {
    current = await makeTempDir();
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  return {
    get path() {
      if (current === undefined) throw new Error('useTempDir: path is only set inside a test');
      return current.dir;
    },
  };
}

/** A valid keel message entry with one text block. */
export function textMessage(
  id: string,
  text: string,
  role: MessageEntry['role'] = 'user',
): MessageEntry {
  return {
    type: 'message',
    id,
    messageId: id,
    timestamp: '2026-01-01T00:00:00.000Z',
    role,
    content: [{ type: 'text', text }],
  };
}

/** Polls `condition` every `intervalMs` until it is truthy or `timeoutMs` passes (then throws). */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${options.what ?? 'condition'}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}

export interface NodeChild {
  child: ChildProcess;
  /** Everything the child wrote to stdout so far. */
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Writes `source` (an ES module; `DIST` is replaced with the dist URL) to `dir` and runs it with node. */
export async function spawnNodeScript(
  dir: string,
  name: string,
  source: string,
  args: string[] = [],
): Promise<NodeChild> {
  const file = join(dir, name);
  await writeFile(file, source.replaceAll('DIST', JSON.stringify(distUrl)));
  const child = spawn(process.execPath, [file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** One request a store or lock made, as a recording file system saw it. */
export interface FileSystemCall {
  method: keyof FileSystem;
  /** The path, or for a descriptor call the path it was opened with. */
  path: string;
}

/**
 * The real file system, recording every request (with the path behind each descriptor), with
 * `around` able to replace any call, e.g. to inject the fault a real file system can produce.
 */
export function recordingFileSystem(
  around: Partial<{
    [Method in keyof FileSystem]: (
      real: FileSystem[Method],
      ...args: Parameters<FileSystem[Method]>
    ) => ReturnType<FileSystem[Method]>;
  }> = {},
): { fileSystem: FileSystem; calls: FileSystemCall[] } {
  const calls: FileSystemCall[] = [];
  const paths = new Map<number, string>();
  const fileSystem = {} as Record<string, unknown>;
  for (const method of Object.keys(nodeFileSystem) as Array<keyof FileSystem>) {
    const real = nodeFileSystem[method] as (...args: unknown[]) => Promise<unknown>;
    const wrapper = around[method] as
      | ((real: unknown, ...args: unknown[]) => Promise<unknown>)
      | undefined;
    fileSystem[method] = async (...args: unknown[]) => {
      const first = args[0];
      const path = typeof first === 'number' ? (paths.get(first) ?? `fd ${first}`) : String(first);
      calls.push({ method, path });
      const result = await (wrapper ? wrapper(real, ...args) : real(...args));
      if (method === 'open') paths.set(result as number, String(first));
      return result;
    };
  }
  return { fileSystem: fileSystem as unknown as FileSystem, calls };
}
