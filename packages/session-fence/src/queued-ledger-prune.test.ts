/**
 * The file store's queued-append ledger (`<id>.queued`) is pruned when a new turn claim is
 * granted: every message queued so far is then history the new turn reads from the transcript.
 * A crash between the claim and the prune (the ledger left as it was) loses and doubles nothing.
 */
import { copyFile, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionTurnClaims } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { textMessage, useTempDir } from '../test/support';
import { createSessionFence } from './session-fence';
import { createTranscriptStore } from './transcript-store';

const temp = useTempDir();

function setUp() {
  const sessionsDir = join(temp.path, 'sessions');
  // Two stores on one directory, as two gateways are.
  const [owner, other] = [0, 1].map(() => createTranscriptStore({ sessionsDir })) as [
    ReturnType<typeof createTranscriptStore>,
    ReturnType<typeof createTranscriptStore>,
  ];
  const claims = owner.turnClaims as SessionTurnClaims;
  const queue = other.turnClaims as SessionTurnClaims;
  const ledger = join(sessionsDir, 's1.queued');
  return { owner, claims, queue, ledger };
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

async function ids(store: ReturnType<typeof createTranscriptStore>) {
  return (await store.read('s1')).entries.map((entry) =>
    entry.type === 'message' ? entry.id : '',
  );
}

describe('the queued-append ledger of the file store', () => {
  it('is pruned when the next turn claim is granted; the queued messages stay, once', async () => {
    const { owner, claims, queue, ledger } = setUp();
    await owner.append('s1', [textMessage('m0', 'first')]);
    const first = await claims.claimTurn('s1', { owner: 'a', turnId: 't1' });
    if (!first.claimed) throw new Error('not claimed');
    await queue.appendQueued('s1', [textMessage('q1', 'one')]);
    await queue.appendQueued('s1', [textMessage('q2', 'two')]);
    expect((await readFile(ledger, 'utf8')).trim().split('\n')).toHaveLength(2);
    await first.claim.release();

    const second = await claims.claimTurn('s1', { owner: 'b', turnId: 't2' });
    if (!second.claimed) throw new Error('not claimed');
    expect(await exists(ledger)).toBe(false);
    expect(await ids(owner)).toEqual(['m0', 'q1', 'q2']);

    // Queued for the new turn: recorded again, and adopted by its fence as queued.
    const fence = createSessionFence({ storage: owner, sessionId: 's1' });
    await fence.acquire();
    await fence.release();
    await queue.appendQueued('s1', [textMessage('q3', 'three')]);
    await fence.reacquire();
    expect(fence.takeover).toBeUndefined();
    expect(fence.takeAdopted().map((message) => message.id)).toEqual(['q3']);
    await fence.end();
    await second.claim.release();
  });

  it('a crash between the claim and the prune loses and doubles nothing; the next claim prunes', async () => {
    const { owner, claims, queue, ledger } = setUp();
    await owner.append('s1', [textMessage('m0', 'first')]);
    const first = await claims.claimTurn('s1', { owner: 'a', turnId: 't1' });
    if (!first.claimed) throw new Error('not claimed');
    await queue.appendQueued('s1', [textMessage('q1', 'one')]);
    const kept = join(temp.path, 'ledger-before-the-crash');
    await copyFile(ledger, kept);
    await first.claim.release();
    const second = await claims.claimTurn('s1', { owner: 'b', turnId: 't2' });
    if (!second.claimed) throw new Error('not claimed');
    // As if the process died after the claim and before the prune: the old ledger is there.
    await copyFile(kept, ledger);

    const fence = createSessionFence({ storage: owner, sessionId: 's1' });
    await fence.acquire();
    await fence.append([textMessage('u2', 'the new turn')]);
    await fence.release();
    await queue.appendQueued('s1', [textMessage('q2', 'two')]);
    await fence.reacquire();
    expect(fence.takeover).toBeUndefined();
    // Only what was queued for this turn is adopted; q1 is history, read once.
    expect(fence.takeAdopted().map((message) => message.id)).toEqual(['q2']);
    await fence.end();
    expect(await ids(owner)).toEqual(['m0', 'q1', 'u2', 'q2']);
    await second.claim.release();

    const third = await claims.claimTurn('s1', { owner: 'a', turnId: 't3' });
    if (!third.claimed) throw new Error('not claimed');
    expect(await exists(ledger)).toBe(false);
    await third.claim.release();
  });
});
