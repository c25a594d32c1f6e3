/** A writer killed with `kill -9` in the middle of appending: what is left must read and repair. */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, type NodeChild, spawnNodeScript, waitFor } from './test-support';
import { createTranscriptStore } from './transcript-store';

let dir: string;
let cleanup: () => Promise<void>;
let writer: NodeChild | undefined;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(async () => {
  if (writer && writer.child.exitCode === null && writer.child.signalCode === null)
    writer.child.kill('SIGKILL');
  await cleanup();
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

describe('a transcript whose writer was killed with kill -9', () => {
  it('reads every whole entry in order, at most one torn last line, and the next append repairs it', async () => {
    const sessionsDir = join(dir, 'sessions');
    writer = await spawnNodeScript(dir, 'appender.mjs', appender, [sessionsDir]);
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
