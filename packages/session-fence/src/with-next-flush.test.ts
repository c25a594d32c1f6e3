/**
 * `flush: 'with-next'`: entries written and not flushed on their own (a turn's start for a message
 * already durable); the next flushed append's fsync covers them. A new transcript is flushed
 * whatever was asked (its directory entry too). Appends sharing one fence write are flushed as the
 * most demanding of them asks. Counted at the store's file-system port, on the real file system.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingFileSystem, textMessage, useTempDir } from '../test/support';
import { createSessionFence } from './session-fence';
import { createTranscriptStoreWith } from './transcript-store';

const temp = useTempDir();

function countingStore() {
  const { fileSystem, calls } = recordingFileSystem();
  const store = createTranscriptStoreWith(fileSystem, { sessionsDir: join(temp.path, 'sessions') });
  const transcript = store.transcriptPath('s');
  /** The writes and fsyncs of the transcript since `from`, in order. */
  const since = (from: number) =>
    calls
      .slice(from)
      .filter(
        (call) => call.path === transcript && (call.method === 'write' || call.method === 'fsync'),
      )
      .map((call) => call.method);
  return { store, calls, since };
}

describe('a with-next append', () => {
  it('is written and readable without an fsync of its own; the next flushed append’s fsync covers it', async () => {
    const { store, calls, since } = countingStore();
    await store.append('s', [textMessage('m0', 'hello')]);
    const from = calls.length;
    const result = await store.append('s', [textMessage('t1', 'start')], { flush: 'with-next' });
    expect(result.durable).toBeUndefined();
    expect(since(from)).toEqual(['write']);
    expect((await store.read('s')).entries.map((entry) => entry.id)).toEqual(['m0', 't1']);
    await store.append('s', [textMessage('r1', 'reply', 'assistant')]);
    expect(since(from)).toEqual(['write', 'write', 'fsync']);
  });

  it('that creates the transcript is flushed like any other', async () => {
    const { store, calls, since } = countingStore();
    const from = calls.length;
    await store.append('s', [textMessage('t1', 'start')], { flush: 'with-next' });
    expect(since(from)).toEqual(['write', 'fsync']);
  });
});

describe('appends sharing one fence write', () => {
  async function heldFence() {
    const disk = countingStore();
    await disk.store.append('s', [textMessage('m0', 'hello')]);
    const fence = createSessionFence({ storage: disk.store, sessionId: 's' });
    await fence.acquire();
    return { ...disk, fence };
  }

  it('all with-next: one write, no fsync', async () => {
    const { fence, calls, since } = await heldFence();
    const from = calls.length;
    await Promise.all([
      fence.append([textMessage('a', 'one')], { flush: 'with-next' }),
      fence.append([textMessage('b', 'two')], { flush: 'with-next' }),
    ]);
    expect(since(from)).toEqual(['write']);
    await fence.end();
  });

  it('one of them before-return: one write and its fsync', async () => {
    const { fence, calls, since } = await heldFence();
    const from = calls.length;
    const [later, plain] = await Promise.all([
      fence.append([textMessage('a', 'one')], { flush: 'with-next' }),
      fence.append([textMessage('b', 'two')]),
    ]);
    expect(since(from)).toEqual(['write', 'fsync']);
    // The shared write deferred its flush for the with-next member; the plain one waited for it.
    expect(plain.durable).toBeInstanceOf(Promise);
    expect(later.state).toEqual(plain.state);
    await fence.end();
  });
});
