import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { TransportError } from '../transport-error';
import { isRecord } from './is-record';

/** A gateway session's claude-cli binding: which CLI session continues it. */
export interface CliBinding {
  cliSessionId: string;
  /** The working directory the CLI ran in (its transcript lives under a slug of it). */
  cwd?: string;
  /** ISO-8601 time the binding was written. */
  boundAt: string;
}

/** Where bindings live. Implement it to keep them elsewhere (a database, a cache). */
export interface BindingStore {
  get(sessionId: string): Promise<CliBinding | undefined>;
  set(sessionId: string, binding: CliBinding): Promise<void>;
  delete(sessionId: string): Promise<void>;
}

/** The current version of the binding file. */
export const BINDING_FILE_VERSION = 1;

/** The binding file, as persisted. */
export interface BindingFile {
  version: typeof BINDING_FILE_VERSION;
  bindings: Record<string, CliBinding>;
}

/**
 * Brings any earlier binding file up to the current version. Version 0 (no `version` field) is
 * a plain `{ [sessionId]: cliSessionId }` map. A file from a newer version is refused rather than
 * overwritten.
 */
export function migrateBindingFile(data: unknown): BindingFile {
  if (data === undefined || data === null) {
    return { version: BINDING_FILE_VERSION, bindings: Object.create(null) };
  }
  if (!isRecord(data))
    throw new TransportError({ message: 'claude-cli binding file is not an object' });
  const version = data['version'] ?? 0;
  if (version === 0) {
    const bindings: Record<string, CliBinding> = Object.create(null);
    const boundAt = new Date(0).toISOString();
    for (const [sessionId, cliSessionId] of Object.entries(data)) {
      if (typeof cliSessionId === 'string') bindings[sessionId] = { cliSessionId, boundAt };
    }
    return { version: BINDING_FILE_VERSION, bindings };
  }
  if (version === BINDING_FILE_VERSION && isRecord(data['bindings'])) {
    const bindings: Record<string, CliBinding> = Object.create(null);
    for (const [sessionId, binding] of Object.entries(data['bindings'])) {
      if (isRecord(binding) && typeof binding['cliSessionId'] === 'string') {
        bindings[sessionId] = binding as unknown as CliBinding;
      }
    }
    return { version: BINDING_FILE_VERSION, bindings };
  }
  throw new TransportError({
    message: `claude-cli binding file has unsupported version ${String(version)}`,
  });
}

export interface FileBindingStoreOptions {
  /** The JSON file holding every binding. Its directory is created on the first write. */
  path: string;
}

/**
 * Bindings in one JSON file, replaced atomically (temp file + rename) on each change. Changes
 * from one process are serialized; several processes must not share one file.
 */
export function createFileBindingStore(options: FileBindingStoreOptions): BindingStore {
  let chain: Promise<unknown> = Promise.resolve();
  const serialize = <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task, task);
    chain = run.catch(() => undefined);
    return run;
  };
  const load = async (): Promise<BindingFile> => {
    let text: string;
    try {
      text = await readFile(options.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return migrateBindingFile(undefined);
      throw error;
    }
    return migrateBindingFile(JSON.parse(text));
  };
  const save = async (file: BindingFile) => {
    await mkdir(dirname(options.path), { recursive: true });
    const temp = `${options.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
      await rename(temp, options.path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  };
  return {
    get: (sessionId) => serialize(async () => (await load()).bindings[sessionId]),
    set: (sessionId, binding) =>
      serialize(async () => {
        const file = await load();
        file.bindings[sessionId] = binding;
        await save(file);
      }),
    delete: (sessionId) =>
      serialize(async () => {
        const file = await load();
        if (!(sessionId in file.bindings)) return;
        delete file.bindings[sessionId];
        await save(file);
      }),
  };
}

/** Bindings in memory only (tests, single-run tools). */
export function createMemoryBindingStore(): BindingStore {
  const bindings = new Map<string, CliBinding>();
  return {
    get: async (sessionId) => bindings.get(sessionId),
    set: async (sessionId, binding) => {
      bindings.set(sessionId, binding);
    },
    delete: async (sessionId) => {
      bindings.delete(sessionId);
    },
  };
}
