/**
 * `readSince` of the file store (read-transcript.ts): the lines after a state, read only while the
 * bytes that state covered are still there. A state taken while the file ended inside a line (a
 * write seen half done) is not read from: starting there would skip the line it cut — the
 * hand-made mutant that drops the newline check returns no entries where the whole read finds one.
 * Another store over the same folder (another process) is read from too: its batch, its entries.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { textMessage, useTempDir } from '../test/support';
import { createTranscriptStore, type TranscriptStore } from './transcript-store';

const temp = useTempDir();
let store: TranscriptStore;
beforeEach(async () => {
  store = createTranscriptStore({ sessionsDir: join(temp.path, 'sessions'), fsync: false });
  await mkdir(store.sessionsDir, { recursive: true });
});

describe('readSince over the file store', () => {
  it('reads what another store appended after the state, and only that', async () => {
    const first = await store.append('s', [textMessage('a', 'one')]);
    const other = createTranscriptStore({ sessionsDir: store.sessionsDir, fsync: false });
    await other.append('s', [textMessage('b', 'two'), textMessage('c', 'three')]);
    await other.append('s', [textMessage('d', 'four')]);
    const since = await store.readSince('s', first.state);
    expect(since?.entries.map((entry) => entry.id)).toEqual(['b', 'c', 'd']);
    expect(since?.text?.chars).toBeGreaterThan(0);
  });

  it('does not read from a state that ended inside a line', async () => {
    await store.append('s', [textMessage('a', 'one')]);
    const line = `${JSON.stringify(textMessage('b', 'two'))}\n`;
    const half = Math.floor(line.length / 2);
    await appendFile(store.transcriptPath('s'), line.slice(0, half));
    const torn = await store.state('s');
    await appendFile(store.transcriptPath('s'), line.slice(half));
    expect((await store.read('s')).entries.map((entry) => entry.id)).toEqual(['a', 'b']);
    expect(await store.readSince('s', torn)).toBeUndefined();
  });
});
