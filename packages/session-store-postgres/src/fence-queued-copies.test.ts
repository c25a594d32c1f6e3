/**
 * One client message reaching two gateways at once (a retry): the owner writes it through its
 * running turn's fence while the other queues it (`appendQueued`). Whichever is first, the
 * transcript holds it once — two stores, each over its own pool, on one schema, as two gateways.
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import { createSessionFence } from '@keel/session-fence';
import type { SessionTurnClaims } from '@keel/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message, sessionIdFor, userText } from '../test/transcript-fixtures';
import { createPostgresSessionStorage } from './postgres-session-storage';

const database = useTestDatabase();
let owner: ReturnType<typeof createPostgresSessionStorage>;
let other: ReturnType<typeof createPostgresSessionStorage>;
let queue: SessionTurnClaims;
beforeAll(() => {
  [owner, other] = [0, 1].map(() =>
    createPostgresSessionStorage({ pool: database.pool({ max: 2 }), schema: 'fence_copies' }),
  ) as [typeof owner, typeof other];
  if (other.turnClaims === undefined) throw new Error('the PostgreSQL store has no turn claims');
  queue = other.turnClaims;
});
afterAll(() => Promise.all([owner.close(), other.close()]));

const retry = (clientMessageId: string) =>
  message('user', [{ type: 'text', text: 'the question' }], { clientMessageId });

/** A turn's fence in its model call (released), its session holding one message. */
async function runningTurn(label: string) {
  const sessionId = sessionIdFor(label);
  await owner.append(sessionId, [userText('first')]);
  const fence = createSessionFence({ storage: owner, sessionId });
  await fence.acquire();
  await fence.release();
  return { fence, sessionId };
}

const copiesOf = async (sessionId: string, clientMessageId: string) =>
  (await owner.read(sessionId)).entries.filter(
    (entry) => entry.type === 'message' && entry.clientMessageId === clientMessageId,
  );

describe('a client message queued at one gateway and written through the owner at another', () => {
  it('queued first: the owner’s write of it is left out and fails; the queued copy is adopted', async () => {
    const { fence, sessionId } = await runningTurn('copies-queued-first');
    const queued = retry('c-1');
    await queue.appendQueued(sessionId, [queued]);
    const local = userText('another message');
    const [copy, rest] = await Promise.allSettled([
      fence.append([retry('c-1')]),
      // In the same write: not a copy, so written.
      fence.append([local]),
    ]);
    expect(copy.status).toBe('rejected');
    expect(String((copy as PromiseRejectedResult).reason)).toMatch(/queued by another gateway/);
    expect(rest.status).toBe('fulfilled');
    expect(fence.takeAdopted()).toEqual([queued]);
    await fence.end();
    expect(fence.takeover).toBeUndefined();
    expect(await copiesOf(sessionId, 'c-1')).toEqual([queued]);
    expect((await owner.read(sessionId)).entries.at(-1)).toEqual(local);
  });

  it('written through the owner first: the queued copy is not written', async () => {
    const { fence, sessionId } = await runningTurn('copies-owner-first');
    const written = retry('c-2');
    await fence.append([written]);
    await queue.appendQueued(sessionId, [retry('c-2')]);
    await fence.end();
    expect(fence.takeover).toBeUndefined();
    expect(await copiesOf(sessionId, 'c-2')).toEqual([written]);
  });

  it('a queued message of another client id is adopted and the owner’s message written', async () => {
    const { fence, sessionId } = await runningTurn('copies-other-id');
    await queue.appendQueued(sessionId, [retry('c-3')]);
    await fence.append([retry('c-4')]);
    expect(fence.takeAdopted()).toHaveLength(1);
    await fence.end();
    expect(await copiesOf(sessionId, 'c-3')).toHaveLength(1);
    expect(await copiesOf(sessionId, 'c-4')).toHaveLength(1);
  });
});
