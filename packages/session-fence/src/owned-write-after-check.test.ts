import { appendFile, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingFileSystem, textMessage, useTempDir } from '../test/support';
import { createSessionFence } from './session-fence';
import { SessionTakeoverError } from './session-fence-error';
import { createTranscriptStoreWith } from './transcript-store';

// An owned write right after the fence compared the transcript (acquire, reacquire, check) takes
// that comparison for its own (`AppendOptions.checkedJustBefore`): it makes sure the file is the
// same one and of the same size, reads none of its bytes, and the next comparison finds what a
// read would have (README "Owned writes right after a check").
const temp = useTempDir();
const NEVER = 2 ** 31 - 1;

function recordedStore() {
  const { fileSystem, calls } = recordingFileSystem();
  const store = createTranscriptStoreWith(fileSystem, {
    sessionsDir: join(temp.path, 'sessions'),
    lock: { staleMs: 60_000, heartbeatMs: NEVER },
    keptLeaseIdleMs: NEVER,
  });
  return { store, calls };
}

/** A fence acquired (its check just made) over a transcript holding one message, `original`. */
async function acquiredAfterOneMessage() {
  const { store } = recordedStore();
  const setup = createSessionFence({ storage: store, sessionId: 's1' });
  await setup.acquire();
  await setup.append([textMessage('m1', 'original')]);
  await setup.end();
  const fence = createSessionFence({ storage: store, sessionId: 's1' });
  await fence.acquire();
  return { store, path: store.transcriptPath('s1'), fence };
}

async function takeover(promise: Promise<unknown>): Promise<SessionTakeoverError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!SessionTakeoverError.isInstance(error)) throw new Error(`expected a takeover: ${error}`);
  return error;
}

describe('an owned write right after a check', () => {
  it('reads none of the transcript before writing: the check just before read it', async () => {
    const { store, calls } = recordedStore();
    const path = store.transcriptPath('s1');
    for (const id of ['t1', 't2', 't3']) {
      const fence = createSessionFence({ storage: store, sessionId: 's1' });
      await fence.acquire();
      await fence.append([textMessage(`${id}-u`, 'question '.repeat(400))]);
      await fence.release();
      await fence.reacquire();
      await fence.append([textMessage(`${id}-a`, 'answer', 'assistant')]);
      await fence.end();
    }
    const onTranscript = calls.filter((call) => call.path === path).map((call) => call.method);
    const writes = onTranscript.flatMap((method, index) => (method === 'write' ? [index] : []));
    expect(writes).toHaveLength(6);
    // Before each write of the later turns: the identity and size (one lstat), no read.
    for (const index of writes.slice(2)) expect(onTranscript[index - 1]).toBe('lstat');
    // The comparisons themselves still read: reacquire and end of the first turn (its acquire
    // found no file), acquire, reacquire and end of the others.
    expect(onTranscript.filter((method) => method === 'read')).toHaveLength(8);
    await store.close();
  });

  it('reads the transcript when its caller did not just compare it (a store append with expected)', async () => {
    const { store, calls } = recordedStore();
    const path = store.transcriptPath('s1');
    const lease = await store.lease('s1');
    const first = await store.append('s1', [textMessage('m1', 'x')], { lease });
    const from = calls.length;
    await store.append('s1', [textMessage('m2', 'y')], { lease, expected: first.state });
    const reads = calls.slice(from).filter((call) => call.path === path && call.method === 'read');
    expect(reads.length).toBeGreaterThan(0);
    await lease.release();
    await store.close();
  });

  it('writes after a same-size rewrite made since the check; the next check finds it', async () => {
    const { store, path, fence } = await acquiredAfterOneMessage();
    const before = await readFile(path, 'utf8');
    await writeFile(path, before.replace('original', 'rewrite!'));
    await fence.append([textMessage('m2', 'next')]);
    await fence.release();
    const error = await takeover(fence.reacquire());
    expect([error.phase, error.change]).toEqual(['prompt_reacquire', 'rewritten']);
    await store.close();
  });

  it('is still refused when the transcript grew since the check (its size)', async () => {
    const { store, path, fence } = await acquiredAfterOneMessage();
    await appendFile(path, '{"foreign":true}\n');
    const written = await readFile(path, 'utf8');
    const error = await takeover(fence.append([textMessage('m2', 'next')]));
    expect([error.phase, error.change]).toEqual(['write', 'appended']);
    expect(await readFile(path, 'utf8')).toBe(written);
    await fence.end().catch(() => undefined);
    await store.close();
  });

  it('is still refused when the transcript was replaced since the check (its identity)', async () => {
    const { store, path, fence } = await acquiredAfterOneMessage();
    const copy = `${path}.copy`;
    await writeFile(copy, await readFile(path));
    await rename(copy, path);
    const error = await takeover(fence.append([textMessage('m2', 'next')]));
    expect([error.phase, error.change]).toEqual(['write', 'replaced']);
    expect(await readFile(path, 'utf8')).not.toContain('"m2"');
    await fence.end().catch(() => undefined);
    await store.close();
  });
});
