/**
 * What an append repairs first, and what readers skip: a torn write is dropped, a complete entry
 * never is, and a batch cut short is not read at all (see batch-framing.ts).
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { textMessage, useTempDir } from '../test/support';
import { findOrphanedToolUses } from './find-orphaned-tool-uses';
import { createTranscriptStore, type TranscriptStore } from './transcript-store';

const temp = useTempDir();
let store: TranscriptStore;
beforeEach(async () => {
  store = createTranscriptStore({ sessionsDir: join(temp.path, 'sessions') });
  await mkdir(store.sessionsDir, { recursive: true });
});

const ids = async (sessionId: string) =>
  (await store.read(sessionId)).entries.map((entry) => entry.id);
const v0Line = (id: string) => JSON.stringify({ id, timestamp: 't', role: 'user', content: id });

describe('repair before an append never drops a complete entry', () => {
  it('keeps a complete last line without `type` (a version 0 message) that lacks its newline', async () => {
    await writeFile(store.transcriptPath('v0'), `${v0Line('a')}\n${v0Line('b')}`);
    expect(await ids('v0')).toEqual(['a', 'b']);
    const result = await store.append('v0', [textMessage('c', 'new')]);
    expect(result.repaired).toBe('terminated-last-line');
    expect(await ids('v0')).toEqual(['a', 'b', 'c']);
    expect((await store.read('v0')).issues).toEqual([]);
  });

  it('keeps the only line of a headerless (version 0) file, and writes no header into it', async () => {
    await writeFile(store.transcriptPath('v0'), v0Line('only'));
    await store.append('v0', [textMessage('next', 'x')]);
    const read = await store.read('v0');
    expect(read.version).toBe(0);
    expect(read.header).toBeUndefined();
    expect(read.entries.map((entry) => entry.id)).toEqual(['only', 'next']);
    expect(read.issues).toEqual([]);
  });

  it('replaces a torn header with a whole one, so the file keeps its format version', async () => {
    await writeFile(store.transcriptPath('h'), '{"type":"header","version":2,"sessi');
    const torn = await store.read('h');
    expect(torn.entries).toEqual([]);
    expect(torn.issues).toEqual([expect.objectContaining({ reason: 'torn-last-line' })]);
    const result = await store.append('h', [textMessage('1', 'first')]);
    expect(result.repaired).toBe('dropped-torn-line');
    const read = await store.read('h');
    expect(read.header).toMatchObject({ type: 'header', version: 2, sessionId: 'h' });
    expect(read.version).toBe(2);
    expect(read.entries.map((entry) => entry.id)).toEqual(['1']);
    expect(read.issues).toEqual([]);
  });

  it('keeps a whole header that only lost its newline', async () => {
    const header = JSON.stringify({ type: 'header', version: 2, sessionId: 'h', createdAt: 't' });
    await writeFile(store.transcriptPath('h'), header);
    const result = await store.append('h', [textMessage('1', 'first')]);
    expect(result.repaired).toBe('terminated-last-line');
    const text = await readFile(store.transcriptPath('h'), 'utf8');
    expect(text.startsWith(`${header}\n`)).toBe(true);
    expect((await store.read('h')).entries.map((entry) => entry.id)).toEqual(['1']);
  });
});

describe('a batch cut short', () => {
  /** What a writer killed in the middle of a three-entry append leaves: two whole lines of it. */
  async function cutShort(sessionId: string): Promise<void> {
    await store.append(sessionId, [textMessage('1', 'committed')]);
    const batch = [
      { ...textMessage('2', 'calls a tool'), role: 'assistant' as const },
      textMessage('3', 'second'),
    ];
    batch[0]!.content = [{ type: 'tool_use', id: 'tu-uncommitted', name: 'Bash', input: {} }];
    // The framing an append writes: every line but the batch's last ends with a space.
    await appendFile(
      store.transcriptPath(sessionId),
      `${JSON.stringify(batch[0])} \n${JSON.stringify(batch[1])} \n`,
    );
  }

  it('is not read, by read, readTail or the orphan scan', async () => {
    await cutShort('s');
    const read = await store.read('s');
    expect(read.entries.map((entry) => entry.id)).toEqual(['1']);
    expect(read.issues.map((issue) => issue.reason)).toEqual(['torn-last-line', 'torn-last-line']);
    expect((await store.readTail('s')).entries.map((entry) => entry.id)).toEqual(['1']);
    expect(await findOrphanedToolUses(store.transcriptPath('s'), { format: 'keel' })).toEqual([]);
    expect(await store.inspectTrailingToolUses('s')).toEqual({ orphans: [], complete: true });
  });

  it('is not read with a torn last line either, and the next append removes all of it', async () => {
    await cutShort('s');
    await appendFile(store.transcriptPath('s'), '{"type":"message","id":"4","ti');
    expect(await ids('s')).toEqual(['1']);
    const result = await store.append('s', [textMessage('5', 'after')]);
    expect(result.repaired).toBe('dropped-torn-line');
    const read = await store.read('s');
    expect(read.entries.map((entry) => entry.id)).toEqual(['1', '5']);
    expect(read.issues).toEqual([]);
  });

  it('counts once its last line is whole, even when only that line lost its newline', async () => {
    await cutShort('s');
    await appendFile(store.transcriptPath('s'), JSON.stringify(textMessage('4', 'closes it')));
    expect(await ids('s')).toEqual(['1', '2', '3', '4']);
    expect(await findOrphanedToolUses(store.transcriptPath('s'), { format: 'keel' })).toEqual([
      'tu-uncommitted',
    ]);
    const result = await store.append('s', [textMessage('5', 'after')]);
    expect(result.repaired).toBe('terminated-last-line');
    expect(await ids('s')).toEqual(['1', '2', '3', '4', '5']);
  });

  it('is how appends frame batches: every line but the last of an append ends with a space', async () => {
    await store.append('s', [textMessage('1', 'a'), textMessage('2', 'b'), textMessage('3', 'c')]);
    await store.append('s', [textMessage('4', 'd')]);
    const lines = (await readFile(store.transcriptPath('s'), 'utf8')).split('\n');
    expect(lines.map((line) => line.endsWith(' '))).toEqual([
      false,
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(lines.slice(1, 5).map((line) => JSON.parse(line).id)).toEqual(['1', '2', '3', '4']);
  });
});
