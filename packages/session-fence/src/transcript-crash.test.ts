/** A writer killed with `kill -9` in the middle of appending: what is left must read and repair. */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type NodeChild, spawnNodeScript, useTempDir, waitFor } from './test-support';
import { createTranscriptStore } from './transcript-store';

const temp = useTempDir();
let writer: NodeChild | undefined;
afterEach(async () => {
  if (writer && writer.child.exitCode === null && writer.child.signalCode === null)
    writer.child.kill('SIGKILL');
});

const appender = `
import { createTranscriptStore } from DIST;
const store = createTranscriptStore({ sessionsDir: process.argv[2], fsync: false });
const filler = 'x'.repeat(256 * 1024);
for (let index = 0; ; index += 1) {
  await store.append('s', [{ type: 'message', id: String(index), timestamp: 't', role: 'user', content: [{ type: 'text', text: filler }] }]);
  if (index === 0) console.log('started');
}
`;

const tornWriter = `
import { openSync, writeSync } from 'node:fs';
import { createTranscriptStore } from DIST;
const store = createTranscriptStore({ sessionsDir: process.argv[2] });
const entry = (id) => ({ type: 'message', id, timestamp: 't', role: 'user', content: [{ type: 'text', text: id }] });
await store.append('s', [entry('0'), entry('1')]);
const line = JSON.stringify(entry('2')) + '\\n';
writeSync(openSync(store.transcriptPath('s'), 'a'), line.slice(0, line.length >> 1));
console.log('torn');
setInterval(() => {}, 1000);
`;

describe('a transcript whose writer was killed with kill -9', () => {
  it('skips the half-written line the killed writer left, and the next append repairs it', async () => {
    const sessionsDir = join(temp.path, 'sessions');
    writer = await spawnNodeScript(temp.path, 'torn-writer.mjs', tornWriter, [sessionsDir]);
    await waitFor(() => writer?.stdout().includes('torn'), { what: 'the half-written line' });
    writer.child.kill('SIGKILL');
    expect(await writer.exited).toBeNull();
    const store = createTranscriptStore({ sessionsDir });

    const crashed = await store.read('s');
    expect(crashed.entries.map((entry) => entry.id)).toEqual(['0', '1']);
    expect(crashed.issues).toEqual([
      expect.objectContaining({ line: 4, reason: 'torn-last-line' }),
    ]);
    expect((await store.readTail('s')).entries.map((entry) => entry.id)).toEqual(['0', '1']);

    const result = await store.append('s', [
      { type: 'turn', id: 'after', timestamp: 't', turnId: 'recovery', phase: 'start' },
    ]);
    expect(result.repaired).toBe('dropped-torn-line');
    const repaired = await store.read('s');
    expect(repaired.issues).toEqual([]);
    expect(repaired.entries.map((entry) => entry.id)).toEqual(['0', '1', 'after']);
  });

  it('reads every whole entry in order, at most one torn last line, and the next append repairs it', async () => {
    const sessionsDir = join(temp.path, 'sessions');
    writer = await spawnNodeScript(temp.path, 'appender.mjs', appender, [sessionsDir]);
    await waitFor(() => writer?.stdout().includes('started'), { what: 'the writer to start' });
    const store = createTranscriptStore({ sessionsDir });
    await waitFor(async () => (await stat(store.transcriptPath('s'))).size > 8 * 1024 * 1024, {
      what: '8 MiB of transcript',
      timeoutMs: 60_000,
    });
    writer.child.kill('SIGKILL');
    await writer.exited;

    const crashed = await store.read('s');
    expect(crashed.entries.length).toBeGreaterThan(8);
    expect(crashed.entries.map((entry) => entry.id)).toEqual(
      crashed.entries.map((_, index) => String(index)),
    );
    expect(crashed.issues.filter((issue) => issue.reason !== 'torn-last-line')).toEqual([]);
    expect(crashed.issues.length).toBeLessThanOrEqual(1);

    await store.append('s', [
      { type: 'turn', id: 'after', timestamp: 't', turnId: 'recovery', phase: 'start' },
    ]);
    const repaired = await store.read('s');
    expect(repaired.issues).toEqual([]);
    expect(repaired.entries.map((entry) => entry.id)).toEqual([
      ...crashed.entries.map((entry) => entry.id),
      'after',
    ]);
  });
});
