/**
 * A running turn's fence and queued messages of other gateways: two file stores over one
 * directory, as two gateways are. The fence adopts what the other wrote with `appendQueued`
 * and still takes any other foreign write for a takeover.
 */
import { join } from 'node:path';
import type { SessionTurnClaims } from '@keel/spec';
import { beforeEach, describe, expect, it } from 'vitest';
import { textMessage, useTempDir } from '../test/support';
import { createSessionFence } from './session-fence';
import { createTranscriptStore, type TranscriptStore } from './transcript-store';

const temp = useTempDir();
let owner: TranscriptStore;
let other: TranscriptStore;
let queue: SessionTurnClaims;
beforeEach(async () => {
  const sessionsDir = join(temp.path, 'sessions');
  [owner, other] = [0, 1].map(() => createTranscriptStore({ sessionsDir })) as [
    TranscriptStore,
    TranscriptStore,
  ];
  if (other.turnClaims === undefined) throw new Error('the file store has no turn claims');
  queue = other.turnClaims;
  await owner.append('s1', [textMessage('m0', 'first')]);
});

const ids = async () => (await owner.read('s1')).entries.map((entry) => entry.id);

async function releasedFence() {
  const fence = createSessionFence({ storage: owner, sessionId: 's1' });
  await fence.acquire();
  await fence.append([textMessage('u1', 'the turn')]);
  await fence.release();
  return fence;
}

describe('the fence adopts queued messages of other gateways', () => {
  it('at reacquire: the messages are handed out once, in order, and the turn goes on', async () => {
    const fence = await releasedFence();
    await queue.appendQueued('s1', [textMessage('q1', 'one')]);
    await queue.appendQueued('s1', [textMessage('q2', 'two'), textMessage('q3', 'three')]);
    await fence.reacquire();
    expect(fence.takeover).toBeUndefined();
    expect(fence.takeAdopted().map((entry) => entry.id)).toEqual(['q1', 'q2', 'q3']);
    expect(fence.takeAdopted()).toEqual([]);
    expect(await owner.compare('s1', fence.state ?? missing())).toBeUndefined();
    await fence.append([textMessage('r1', 'reply', 'assistant')]);
    await fence.end();
    expect(await ids()).toEqual(['m0', 'u1', 'q1', 'q2', 'q3', 'r1']);
  });

  it('at a write while released: adopted under the write lease, then the write goes through', async () => {
    const fence = await releasedFence();
    await queue.appendQueued('s1', [textMessage('q1', 'one')]);
    await fence.append([textMessage('l1', 'a local message')]);
    expect(fence.takeAdopted().map((entry) => entry.id)).toEqual(['q1']);
    await fence.reacquire();
    await fence.end();
    expect(await ids()).toEqual(['m0', 'u1', 'q1', 'l1']);
  });

  it('at a check and at the end while released', async () => {
    const fence = await releasedFence();
    await queue.appendQueued('s1', [textMessage('q1', 'one')]);
    await fence.check();
    await queue.appendQueued('s1', [textMessage('q2', 'two')]);
    await fence.end();
    expect(fence.takeover).toBeUndefined();
    expect(fence.takeAdopted().map((entry) => entry.id)).toEqual(['q1', 'q2']);
  });

  it('a plain foreign append is still a takeover, and adopts nothing', async () => {
    const fence = await releasedFence();
    await other.append('s1', [textMessage('x1', 'not queued')]);
    await expect(fence.reacquire()).rejects.toMatchObject({
      keelKind: 'session_takeover',
      phase: 'prompt_reacquire',
      change: 'appended',
    });
    expect(fence.takeAdopted()).toEqual([]);
  });

  it('a queued message followed by a plain foreign append is a takeover', async () => {
    const fence = await releasedFence();
    await queue.appendQueued('s1', [textMessage('q1', 'one')]);
    await other.append('s1', [textMessage('x1', 'not queued')]);
    await expect(fence.append([textMessage('l1', 'local')])).rejects.toMatchObject({
      phase: 'write',
      change: 'appended',
    });
    expect(fence.takeAdopted()).toEqual([]);
    expect(await ids()).toEqual(['m0', 'u1', 'q1', 'x1']);
  });

  it('a client message another gateway queued, adopted by the step before an append of it, is not written again', async () => {
    // A client's retry: queued at another gateway, and sent again here while the turn's model
    // call ran; the orchestrator looked for it before the reacquire adopted the queued copy.
    const client = (id: string) => ({ ...textMessage(id, 'the question'), clientMessageId: 'c1' });
    const fence = await releasedFence();
    await queue.appendQueued('s1', [client('q1')]);
    const reacquired = fence.reacquire();
    const written = fence.append([client('l1')]);
    await reacquired;
    await expect(written).rejects.toMatchObject({
      name: 'SessionFenceError',
      message: expect.stringContaining('queued by another gateway'),
    });
    expect(fence.takeAdopted().map((entry) => entry.id)).toEqual(['q1']);
    // Another append of other messages still goes through, and the fence holds on.
    await fence.append([textMessage('r1', 'reply', 'assistant')]);
    await fence.end();
    expect(fence.takeover).toBeUndefined();
    expect(await ids()).toEqual(['m0', 'u1', 'q1', 'r1']);
  });

  it('over a store without turn claims, a queued-looking write is a takeover', async () => {
    const { turnClaims: _, ...plain } = owner;
    const fence = createSessionFence({ storage: plain, sessionId: 's1' });
    await fence.acquire();
    await fence.release();
    await queue.appendQueued('s1', [textMessage('q1', 'one')]);
    await expect(fence.reacquire()).rejects.toMatchObject({ change: 'appended' });
  });
});

function missing(): never {
  throw new Error('the fence has no state');
}
