import { spawnSync } from 'node:child_process';
import {
  appendFile,
  lstat,
  mkdir,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import type { MessageEntry } from '@keel/spec';
import { beforeEach, describe, expect, it } from 'vitest';
import { textMessage, useTempDir } from '../test/support';
import {
  InvalidSessionIdError,
  InvalidTranscriptEntryError,
  UnsafeTranscriptPathError,
} from './session-fence-error';
import { createTranscriptStore, type TranscriptStore } from './transcript-store';

const temp = useTempDir();
let store: TranscriptStore;
beforeEach(async () => {
  store = createTranscriptStore({ sessionsDir: join(temp.path, 'sessions') });
});

describe('createTranscriptStore', () => {
  it('writes a versioned header and whole lines, and reads them back', async () => {
    await store.append('s1', [textMessage('1', 'hello')]);
    await store.append('s1', [
      textMessage('2', 'multi\nline'),
      { type: 'turn', id: '3', timestamp: 't', turnId: 'x', phase: 'start' },
    ]);
    const text = await readFile(store.transcriptPath('s1'), 'utf8');
    const lines = text.split('\n');
    expect(lines).toHaveLength(5);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      type: 'header',
      version: 2,
      sessionId: 's1',
    });
    const read = await store.read('s1');
    expect(read.header?.version).toBe(2);
    expect(read.entries.map((entry) => entry.id)).toEqual(['1', '2', '3']);
    expect(read.issues).toEqual([]);
  });

  it('reads a missing session as empty', async () => {
    expect(await store.read('nobody')).toMatchObject({ exists: false, entries: [], issues: [] });
  });

  it('rejects invalid session ids with a typed error and never leaves sessionsDir', async () => {
    for (const bad of [
      '',
      '../escape',
      'a/b',
      '.hidden',
      '-x',
      'a'.repeat(129),
      'a b',
      'x\u0000',
    ]) {
      await expect(store.append(bad, [textMessage('1', 'x')])).rejects.toSatisfy(
        InvalidSessionIdError.isInstance,
      );
      expect(() => store.transcriptPath(bad)).toThrow(InvalidSessionIdError);
    }
    expect(store.transcriptPath('a.b_c-D9')).toBe(join(temp.path, 'sessions', 'a.b_c-D9.jsonl'));
    expect(store.transcriptPath('a'.repeat(128))).toContain('a'.repeat(128));
  });

  it('does not follow a symlinked transcript', async () => {
    await store.append('s1', [textMessage('1', 'x')]);
    const victim = join(temp.path, 'victim.txt');
    await writeFile(victim, 'do not touch\n');
    await symlink(victim, store.transcriptPath('evil'));
    await expect(store.append('evil', [textMessage('1', 'x')])).rejects.toSatisfy(
      UnsafeTranscriptPathError.isInstance,
    );
    await expect(store.read('evil')).rejects.toSatisfy(UnsafeTranscriptPathError.isInstance);
    await expect(store.state('evil')).rejects.toSatisfy(UnsafeTranscriptPathError.isInstance);
    expect(await readFile(victim, 'utf8')).toBe('do not touch\n');
  });

  it('does not follow a symlinked lock file in sessionsDir', async () => {
    await store.append('s1', [textMessage('1', 'x')]);
    const victim = join(temp.path, 'victim.txt');
    await writeFile(victim, 'do not touch\n');
    await symlink(victim, store.lockPath('s1'));
    await expect(store.lease('s1', { timeoutMs: 100 })).rejects.toSatisfy(
      UnsafeTranscriptPathError.isInstance,
    );
    expect(await readFile(victim, 'utf8')).toBe('do not touch\n');
    expect((await lstat(store.lockPath('s1'))).isSymbolicLink()).toBe(true);
  });

  it('refuses a transcript that is a directory or a FIFO', async () => {
    await mkdir(join(temp.path, 'sessions'), { recursive: true });
    await mkdir(store.transcriptPath('dir'));
    expect(spawnSync('mkfifo', [store.transcriptPath('fifo')]).status).toBe(0);
    for (const id of ['dir', 'fifo']) {
      await expect(store.append(id, [textMessage('1', 'x')])).rejects.toSatisfy(
        UnsafeTranscriptPathError.isInstance,
      );
      await expect(store.read(id)).rejects.toSatisfy(UnsafeTranscriptPathError.isInstance);
      await expect(store.state(id)).rejects.toSatisfy(UnsafeTranscriptPathError.isInstance);
    }
  });

  it('works through a sessionsDir that is itself a symlink (the configured path is trusted)', async () => {
    const real = join(temp.path, 'real-sessions');
    await mkdir(real);
    await symlink(real, join(temp.path, 'linked'));
    const linked = createTranscriptStore({ sessionsDir: join(temp.path, 'linked') });
    await linked.append('s1', [textMessage('1', 'x')]);
    expect((await lstat(join(real, 's1.jsonl'))).isFile()).toBe(true);
    expect((await linked.read('s1')).entries.map((entry) => entry.id)).toEqual(['1']);
  });

  it('skips a torn last line on read and drops it on the next append', async () => {
    await store.append('s1', [textMessage('1', 'a'), textMessage('2', 'b')]);
    const path = store.transcriptPath('s1');
    await appendFile(path, '{"type":"message","id":"3","times');
    const torn = await store.read('s1');
    expect(torn.entries.map((entry) => entry.id)).toEqual(['1', '2']);
    expect(torn.issues).toEqual([expect.objectContaining({ line: 4, reason: 'torn-last-line' })]);

    const result = await store.append('s1', [textMessage('4', 'd')]);
    expect(result.repaired).toBe('dropped-torn-line');
    const repaired = await store.read('s1');
    expect(repaired.entries.map((entry) => entry.id)).toEqual(['1', '2', '4']);
    expect(repaired.issues).toEqual([]);
    expect((await readFile(path, 'utf8')).endsWith('\n')).toBe(true);
  });

  it('keeps a complete last line that only lacks its newline', async () => {
    await store.append('s1', [textMessage('1', 'a')]);
    const path = store.transcriptPath('s1');
    await appendFile(path, JSON.stringify(textMessage('2', 'b')));
    expect((await store.read('s1')).entries.map((entry) => entry.id)).toEqual(['1', '2']);
    const result = await store.append('s1', [textMessage('3', 'c')]);
    expect(result.repaired).toBe('terminated-last-line');
    expect((await store.read('s1')).entries.map((entry) => entry.id)).toEqual(['1', '2', '3']);
  });

  it('reports a corrupt middle line with its line number and keeps reading', async () => {
    await store.append('s1', [textMessage('1', 'a')]);
    const path = store.transcriptPath('s1');
    await appendFile(path, 'this is not json\n{"type":"message","id":"x"}\n');
    await store.append('s1', [textMessage('2', 'b')]);
    const read = await store.read('s1');
    expect(read.entries.map((entry) => entry.id)).toEqual(['1', '2']);
    expect(read.issues).toEqual([
      expect.objectContaining({ line: 3, reason: 'invalid-json' }),
      expect.objectContaining({ line: 4, reason: 'invalid-entry' }),
    ]);
    const text = await readFile(path, 'utf8');
    const tail = await store.readTail('s1', { maxBytes: text.length - 10 });
    expect(tail.entries.map((entry) => entry.id)).toEqual(['1', '2']);
    expect(tail.issues).toEqual([
      {
        offset: text.indexOf('this is not json'),
        reason: 'invalid-json',
        detail: expect.any(String),
      },
      {
        offset: text.indexOf('{"type":"message","id":"x"}'),
        reason: 'invalid-entry',
        detail: expect.any(String),
      },
    ]);
  });

  it("measures the text of the entries it read: not the header's, nor a skipped line's", async () => {
    const one = textMessage('1', 'a');
    const batch = [textMessage('2', 'b'), textMessage('3', 'メ')];
    await store.append('s1', [one]);
    await appendFile(store.transcriptPath('s1'), 'this is not json\n');
    await store.append('s1', batch);
    const chars = (entries: MessageEntry[]) =>
      entries.reduce((sum, entry) => sum + JSON.stringify(entry).length, 0);
    // A batch's lines but its last carry a framing character.
    expect((await store.read('s1')).text).toEqual({
      chars: chars([one, ...batch]) + 1,
      wide: true,
    });
    const last = Buffer.byteLength(JSON.stringify(batch[1])) + 1;
    const tail = await store.readTail('s1', { maxBytes: last });
    expect(tail.entries.map((entry) => entry.id)).toEqual(['3']);
    expect(tail.text).toEqual({ chars: chars(batch.slice(1)), wide: true });
    await store.append('s2', [one]);
    expect((await store.read('s2')).text).toEqual({ chars: chars([one]), wide: false });
  });

  it('reads the tail without the rest of the file', async () => {
    const entries = Array.from({ length: 200 }, (_, index) =>
      textMessage(String(index), 'x'.repeat(100)),
    );
    await store.append('s1', entries);
    const tail = await store.readTail('s1', { maxBytes: 1000 });
    expect(tail.header?.version).toBe(2);
    expect(tail.entries.length).toBeGreaterThan(0);
    expect(tail.entries.length).toBeLessThan(10);
    expect(tail.entries.at(-1)?.id).toBe('199');
    expect(tail.issues).toEqual([]);
  });

  it('migrates a headerless version 0 transcript', async () => {
    const path = store.transcriptPath('old');
    await store.append('tmp', []);
    await writeFile(
      path,
      `${JSON.stringify({ id: 'a', timestamp: 't', role: 'user', content: 'hi' })}\n${JSON.stringify(
        {
          id: 'b',
          timestamp: 't',
          role: 'tool',
          content: [{ type: 'tool_result', tool_use_id: 'tu', content: 'done', is_error: false }],
        },
      )}\n`,
    );
    const read = await store.read('old');
    expect(read.version).toBe(0);
    // Migrated entries are not their lines' text: none is measured.
    expect(read.text).toBeUndefined();
    expect(read.entries).toEqual([
      {
        type: 'message',
        id: 'a',
        messageId: 'a',
        timestamp: 't',
        role: 'user',
        content: [{ type: 'text', text: 'hi' }],
      },
      {
        type: 'message',
        id: 'b',
        messageId: 'b',
        timestamp: 't',
        role: 'tool',
        content: [{ type: 'tool_result', toolUseId: 'tu', content: 'done', isError: false }],
      },
    ]);
  });

  it('returns the state after each append and detects changes against it', async () => {
    const first = await store.append('s1', [textMessage('1', 'a')]);
    expect(first.state.size).toBe((await stat(store.transcriptPath('s1'))).size);
    expect(await store.compare('s1', first.state)).toBeUndefined();
    await appendFile(store.transcriptPath('s1'), `${JSON.stringify(textMessage('2', 'b'))}\n`);
    expect(await store.compare('s1', first.state)).toBe('appended');
    await truncate(store.transcriptPath('s1'), 10);
    expect(await store.compare('s1', first.state)).toBe('truncated');
  });

  it('names a transcript both rewritten and grown since a state `rewritten`, not `appended`', async () => {
    const path = store.transcriptPath('s1');
    const first = await store.append('s1', [textMessage('1', 'original')]);
    const text = await readFile(path, 'utf8');
    await writeFile(
      path,
      `${text.replace('original', 'rewrite!')}${JSON.stringify(textMessage('2', 'b'))}\n`,
    );
    expect(await store.compare('s1', first.state)).toBe('rewritten');
  });

  it('refuses to write an entry that readers would reject', async () => {
    const bad = {
      type: 'message',
      id: 'x',
      timestamp: 't',
      role: 'robot',
      content: [],
    } as unknown as MessageEntry;
    const error = await store
      .append('s1', [textMessage('1', 'ok'), bad])
      .catch((caught: unknown) => caught);
    expect(InvalidTranscriptEntryError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ index: 1 });
    expect((await store.read('s1')).exists).toBe(false);
  });

  it('never writes through a kept descriptor to a transcript that was replaced or removed', async () => {
    await store.append('s1', [textMessage('1', 'old file')]);
    const path = store.transcriptPath('s1');
    // Another file renamed over the transcript while the store keeps the old one open.
    await writeFile(`${path}.new`, `${JSON.stringify(textMessage('x', 'new file'))}\n`);
    await rename(`${path}.new`, path);
    await store.append('s1', [textMessage('2', 'after the rename')]);
    expect((await store.read('s1')).entries.map((entry) => entry.id)).toEqual(['x', '2']);
    // Removed: the next append creates a new transcript instead of writing to the gone one.
    await rm(path);
    await store.append('s1', [textMessage('3', 'after the removal')]);
    const read = await store.read('s1');
    expect(read.header?.version).toBe(2);
    expect(read.entries.map((entry) => entry.id)).toEqual(['3']);
  });

  it('can skip fsync', async () => {
    const fast = createTranscriptStore({ sessionsDir: join(temp.path, 'fast'), fsync: false });
    await fast.append('s1', [textMessage('1', 'a')]);
    expect((await fast.read('s1')).entries).toHaveLength(1);
  });
});
