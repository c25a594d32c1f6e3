/**
 * A release right after the fence's own write does not check again (the write checked the lease
 * and the state in one step with it), and a write that lands after it is still noticed, at
 * `reacquire`. A release after anything else checks (see `session-fence.test.ts`).
 */
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingFileSystem, textMessage, useTempDir } from '../test/support';
import { createSessionFence } from './session-fence';
import { SessionTakeoverError } from './session-fence-error';
import { createTranscriptStoreWith } from './transcript-store';

const temp = useTempDir();

function recordedStore() {
  const { fileSystem, calls } = recordingFileSystem();
  const store = createTranscriptStoreWith(fileSystem, {
    sessionsDir: join(temp.path, 'sessions'),
  });
  return { store, calls };
}

describe('release after an owned write', () => {
  it('reads nothing of the transcript or the lease before letting go', async () => {
    const { store, calls } = recordedStore();
    await store.append('s', [textMessage('m0', 'hello')]);
    const fence = createSessionFence({ storage: store, sessionId: 's' });
    await fence.acquire();
    await fence.append([textMessage('m1', 'message')]);
    calls.length = 0;
    await fence.release();
    const transcript = store.transcriptPath('s');
    expect(calls.filter((call) => call.path === transcript)).toEqual([]);
    // The lease's counter is only closed (its token is not read again).
    expect(
      calls.filter((call) => call.path === store.fencePath('s') && call.method !== 'close'),
    ).toEqual([]);
    await fence.reacquire();
    await fence.end();
  });

  it('a release after a check (no write) still reads the transcript', async () => {
    const { store, calls } = recordedStore();
    await store.append('s', [textMessage('m0', 'hello')]);
    const fence = createSessionFence({ storage: store, sessionId: 's' });
    await fence.acquire();
    await fence.append([textMessage('m1', 'message')]);
    await fence.check();
    calls.length = 0;
    await fence.release();
    expect(calls.some((call) => call.path === store.transcriptPath('s'))).toBe(true);
    await fence.reacquire();
    await fence.end();
  });

  it('a write that lands between the owned write and the release is noticed at reacquire', async () => {
    const { store } = recordedStore();
    await store.append('s', [textMessage('m0', 'hello')]);
    const fence = createSessionFence({ storage: store, sessionId: 's' });
    await fence.acquire();
    await fence.append([textMessage('m1', 'message')]);
    await appendFile(store.transcriptPath('s'), `${JSON.stringify(textMessage('rogue', 'x'))}\n`);
    await fence.release();
    const error = await fence.reacquire().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(SessionTakeoverError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ phase: 'prompt_reacquire', change: 'appended' });
    await fence.end();
  });
});
