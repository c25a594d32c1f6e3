import { join } from 'node:path';
import type { AppendOptions, SessionStorage, TranscriptEntry } from '@keel/spec';
import { beforeEach, describe, expect, it } from 'vitest';
import { textMessage, useTempDir } from '../test/support';
import { createSessionFence } from './session-fence';
import { SessionTakeoverError } from './session-fence-error';
import { createTranscriptStore, type TranscriptStore } from './transcript-store';

const temp = useTempDir();
let store: TranscriptStore;
/** Every `append` the fence made, with the ids it carried. */
let writes: string[][];
let counted: SessionStorage;
beforeEach(async () => {
  store = createTranscriptStore({ sessionsDir: join(temp.path, 'sessions') });
  await store.append('s1', [textMessage('m0', 'first')]);
  writes = [];
  counted = Object.create(store) as SessionStorage;
  counted.append = (
    sessionId: string,
    entries: readonly TranscriptEntry[],
    options?: AppendOptions,
  ) => {
    writes.push(entries.map((entry) => entry.id));
    return store.append(sessionId, entries, options);
  };
});

const ids = async () => (await store.read('s1')).entries.map((entry) => entry.id);

describe('group commit: appends through one fence while a write is under way', () => {
  it('64 concurrent appends share a few writes, keep their order, and are all durable', async () => {
    const fence = createSessionFence({ storage: counted, sessionId: 's1' });
    await fence.acquire();
    const sent = Array.from({ length: 64 }, (_, index) => `q${index}`);
    const results = await Promise.all(sent.map((id) => fence.append([textMessage(id, id)])));
    // The first append goes alone; every append called while it was under way joined the next.
    expect(writes.length).toBeLessThanOrEqual(2);
    expect(writes.flat()).toEqual(sent);
    expect(await ids()).toEqual(['m0', ...sent]);
    // Each caller learns the state after the write that carried its entries; the fence expects it.
    expect(results.at(-1)?.state).toEqual(fence.state);
    await fence.release();
    await fence.end();
  });

  it('an append called after the previous one finished is a write of its own', async () => {
    const fence = createSessionFence({ storage: counted, sessionId: 's1' });
    await fence.acquire();
    await fence.append([textMessage('a', 'a')]);
    await fence.append([textMessage('b', 'b')]);
    expect(writes).toEqual([['a'], ['b']]);
    await fence.end();
  });

  it('never carries an append across a step queued between them (a release)', async () => {
    const fence = createSessionFence({ storage: counted, sessionId: 's1' });
    await fence.acquire();
    const first = fence.append([textMessage('a', 'a')]);
    const second = fence.append([textMessage('b', 'b')]);
    const released = fence.release();
    const third = fence.append([textMessage('c', 'c')]);
    await Promise.all([first, second, released, third]);
    expect(writes).toEqual([['a', 'b'], ['c']]);
    expect(fence.status).toBe('released');
    await fence.end();
  });

  it('leaves out a member whose signal aborted before the write and rejects it alone', async () => {
    const fence = createSessionFence({ storage: counted, sessionId: 's1' });
    await fence.acquire();
    const stop = new AbortController();
    const first = fence.append([textMessage('a', 'a')]);
    const kept = fence.append([textMessage('b', 'b')]);
    const dropped = fence.append([textMessage('x', 'x')], { signal: stop.signal });
    const alsoKept = fence.append([textMessage('c', 'c')]);
    stop.abort(new Error('the client left'));
    await expect(dropped).rejects.toThrow('the client left');
    await Promise.all([first, kept, alsoKept]);
    expect(await ids()).toEqual(['m0', 'a', 'b', 'c']);
    await fence.end();
  });

  it('a takeover found by the shared write rejects every member, and nothing is written', async () => {
    const fence = createSessionFence({ storage: counted, sessionId: 's1' });
    await fence.acquire();
    await fence.release();
    await store.append('s1', [textMessage('foreign', 'written by another process')]);
    const appends = ['a', 'b', 'c'].map((id) => fence.append([textMessage(id, id)]));
    for (const append of appends) {
      const error = await append.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(SessionTakeoverError.isInstance(error)).toBe(true);
    }
    expect(await ids()).toEqual(['m0', 'foreign']);
    await fence.end();
  });
});
