/**
 * A running turn's session fence over this store and queued messages of other gateways: two
 * stores, each over its own pool, on one schema, as two gateways are. What the other wrote with
 * `appendQueued` is adopted; any other foreign write is still a takeover.
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import { createSessionFence } from '@keel/session-fence';
import type { SessionTurnClaims } from '@keel/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantText, sessionIdFor, userText } from '../test/transcript-fixtures';
import { createPostgresSessionStorage } from './postgres-session-storage';

const database = useTestDatabase();
let gateways: ReturnType<typeof createPostgresSessionStorage>[] = [];
beforeAll(() => {
  gateways = [0, 1].map(() =>
    createPostgresSessionStorage({ pool: database.pool({ max: 2 }), schema: 'fence_queued' }),
  );
});
afterAll(() => Promise.all(gateways.map((gateway) => gateway.close())));

function pair() {
  const [owner, other] = gateways as [
    ReturnType<typeof createPostgresSessionStorage>,
    ReturnType<typeof createPostgresSessionStorage>,
  ];
  const queue: SessionTurnClaims | undefined = other.turnClaims;
  if (queue === undefined) throw new Error('the PostgreSQL store has no turn claims');
  return { owner, other, queue };
}

async function releasedFence(label: string) {
  const { owner } = pair();
  const sessionId = sessionIdFor(label);
  await owner.append(sessionId, [userText('first')]);
  const fence = createSessionFence({ storage: owner, sessionId });
  await fence.acquire();
  await fence.append([userText('the turn')]);
  await fence.release();
  return { fence, sessionId };
}

const texts = async (sessionId: string) =>
  (await pair().owner.read(sessionId)).entries.map((entry) =>
    entry.type === 'message' && entry.content[0]?.type === 'text' ? entry.content[0].text : '',
  );

describe('a fence over PostgreSQL adopts queued messages of other gateways', () => {
  it('at reacquire: handed out once, in order, and the turn writes on', async () => {
    const { queue } = pair();
    const { fence, sessionId } = await releasedFence('adopt-reacquire');
    const q1 = userText('one');
    const [q2, q3] = [userText('two'), userText('three')];
    await queue.appendQueued(sessionId, [q1]);
    await queue.appendQueued(sessionId, [q2, q3]);
    await fence.reacquire();
    expect(fence.takeover).toBeUndefined();
    expect(fence.takeAdopted()).toEqual([q1, q2, q3]);
    expect(fence.takeAdopted()).toEqual([]);
    await fence.append([assistantText('reply')]);
    await fence.end();
    expect(await texts(sessionId)).toEqual(['first', 'the turn', 'one', 'two', 'three', 'reply']);
  });

  it('at a write while released: adopted under the write lease, then written', async () => {
    const { queue } = pair();
    const { fence, sessionId } = await releasedFence('adopt-write');
    await queue.appendQueued(sessionId, [userText('one')]);
    await fence.append([userText('local')]);
    expect(fence.takeAdopted()).toHaveLength(1);
    await fence.end();
    expect(fence.takeover).toBeUndefined();
    expect(await texts(sessionId)).toEqual(['first', 'the turn', 'one', 'local']);
  });

  it('a plain foreign append is still a takeover, and adopts nothing', async () => {
    const { other, queue } = pair();
    const { fence, sessionId } = await releasedFence('adopt-foreign');
    await queue.appendQueued(sessionId, [userText('one')]);
    await other.append(sessionId, [userText('not queued')]);
    await expect(fence.reacquire()).rejects.toMatchObject({
      keelKind: 'session_takeover',
      phase: 'prompt_reacquire',
      change: 'appended',
    });
    expect(fence.takeAdopted()).toEqual([]);
    await fence.end();
  });
});
