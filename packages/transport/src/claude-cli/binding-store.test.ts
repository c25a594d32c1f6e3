import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BINDING_FILE_VERSION,
  createFileBindingStore,
  createMemoryBindingStore,
  migrateBindingFile,
} from './binding-store';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keel-bindings-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const binding = (cliSessionId: string) => ({
  cliSessionId,
  cwd: '/work',
  boundAt: '2026-01-01T00:00:00.000Z',
});

describe('createFileBindingStore', () => {
  it('persists bindings in a versioned file that a new store reads back', async () => {
    const path = join(dir, 'nested', 'bindings.json');
    const store = createFileBindingStore({ path });
    expect(await store.get('s1')).toBeUndefined();
    await store.set('s1', binding('cli-1'));
    await store.set('s2', binding('cli-2'));
    await store.delete('s1');
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(file).toEqual({ version: BINDING_FILE_VERSION, bindings: { s2: binding('cli-2') } });
    const reopened = createFileBindingStore({ path });
    expect(await reopened.get('s2')).toEqual(binding('cli-2'));
    expect(await reopened.get('s1')).toBeUndefined();
    // Written through a temp file and renamed: no temp file stays behind.
    expect(readdirSync(join(dir, 'nested'))).toEqual(['bindings.json']);
  });

  it('loses no update when many sessions bind at once', async () => {
    const path = join(dir, 'bindings.json');
    const store = createFileBindingStore({ path });
    await Promise.all(
      Array.from({ length: 20 }, (_, index) => store.set(`s${index}`, binding(`cli-${index}`))),
    );
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(Object.keys(file.bindings)).toHaveLength(20);
  });

  it('migrates a version-0 file (a plain id map) on read and writes the current version', async () => {
    const path = join(dir, 'bindings.json');
    writeFileSync(path, JSON.stringify({ old: 'cli-old' }));
    const store = createFileBindingStore({ path });
    expect(await store.get('old')).toMatchObject({ cliSessionId: 'cli-old' });
    await store.set('new', binding('cli-new'));
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(file.version).toBe(BINDING_FILE_VERSION);
    expect(file.bindings.old.cliSessionId).toBe('cli-old');
    expect(file.bindings.new.cliSessionId).toBe('cli-new');
  });

  it('refuses a file from a newer version instead of overwriting it', async () => {
    const path = join(dir, 'bindings.json');
    const future = JSON.stringify({ version: 99, bindings: {} });
    writeFileSync(path, future);
    const store = createFileBindingStore({ path });
    await expect(store.set('s', binding('cli'))).rejects.toThrow(/unsupported version 99/);
    expect(readFileSync(path, 'utf8')).toBe(future);
  });
});

describe('migrateBindingFile', () => {
  it('keeps valid entries, drops malformed ones, and starts empty without a file', () => {
    expect(migrateBindingFile(undefined)).toEqual({ version: 1, bindings: {} });
    const migrated = migrateBindingFile({
      version: 1,
      bindings: { ok: binding('cli-ok'), bad: { cliSessionId: 7 } },
    });
    expect(Object.keys(migrated.bindings)).toEqual(['ok']);
    expect(() => migrateBindingFile([1, 2])).toThrow();
  });
});

describe('createMemoryBindingStore', () => {
  it('sets, gets and deletes', async () => {
    const store = createMemoryBindingStore();
    await store.set('s', binding('cli'));
    expect(await store.get('s')).toEqual(binding('cli'));
    await store.delete('s');
    expect(await store.get('s')).toBeUndefined();
  });
});
