/** A writer killed with `kill -9` in the middle of appending: what is left must read and repair. */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type NodeChild, spawnNodeScript, useTempDir, waitFor } from '../test/support';
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

/** Appends batches of 16 entries of 128 KiB each (one write of 2 MiB per batch), without end. */
const batchWriter = `
import { createTranscriptStore } from DIST;
const store = createTranscriptStore({ sessionsDir: process.argv[2], fsync: false });
const filler = 'y'.repeat(128 * 1024);
for (let batch = 0; ; batch += 1) {
  const id = process.argv[3] + batch + '-';
  const entries = Array.from({ length: 16 }, (_, index) => ({ type: 'message', id: id + index, messageId: id + index, timestamp: 't', role: 'user', content: [{ type: 'text', text: filler }] }));
  await store.append('s', entries);
  if (batch === 0) console.log('started');
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

  it('never shows a batch in part: writers killed in the middle of a multi-entry append leave whole batches or nothing', {
    timeout: 120_000,
  }, async () => {
    const sessionsDir = join(temp.path, 'sessions');
    const store = createTranscriptStore({ sessionsDir });
    let expected: string[] = [];
    for (const round of ['a', 'b', 'c']) {
      // Each writer first repairs what the previous one left, then appends batches until killed.
      writer = await spawnNodeScript(temp.path, `batch-writer-${round}.mjs`, batchWriter, [
        sessionsDir,
        round,
      ]);
      await waitFor(() => writer?.stdout().includes('started'), { what: 'the writer to start' });
      await killInsideABatch(writer, store.transcriptPath('s'));

      const crashed = await store.read('s');
      const ids = crashed.entries.map((entry) => entry.id);
      expect(ids.slice(0, expected.length)).toEqual(expected);
      const added = ids.slice(expected.length);
      expect(added.length % 16, `round ${round}: a batch was read in part`).toBe(0);
      expect(added).toEqual(
        added.map((_, index) => `${round}${Math.floor(index / 16)}-${index % 16}`),
      );
      expect(crashed.issues.filter((issue) => issue.reason !== 'torn-last-line')).toEqual([]);
      const tail = await store.readTail('s', { maxBytes: 4 * 1024 * 1024 });
      expect(tail.entries.at(-1)?.id).toBe(ids.at(-1));
      expected = ids;
    }
    await store.append('s', [
      { type: 'turn', id: 'after', timestamp: 't', turnId: 'recovery', phase: 'start' },
    ]);
    const repaired = await store.read('s');
    expect(repaired.issues).toEqual([]);
    expect(repaired.entries.map((entry) => entry.id)).toEqual([...expected, 'after']);
  });
});

/**
 * Waits for a few MiB of transcript, then watches its last two bytes and sends SIGKILL as soon as
 * they show a batch being written (no final newline yet, or a continued line last), so the kill
 * usually lands inside the write of a batch.
 */
async function killInsideABatch(child: NodeChild, path: string): Promise<void> {
  const initial = (await stat(path)).size;
  await waitFor(async () => (await stat(path)).size > initial + 6 * 1024 * 1024, {
    what: 'a few MiB more of transcript',
    timeoutMs: 60_000,
  });
  const fd = openSync(path, 'r');
  try {
    const last = Buffer.alloc(2);
    for (let poll = 1; poll <= 200_000; poll += 1) {
      readSync(fd, last, 0, 2, fstatSync(fd).size - 2);
      if (last[1] !== 0x0a || last[0] === 0x20) break;
      if (poll % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    closeSync(fd);
  }
  child.child.kill('SIGKILL');
  await child.exited;
}
