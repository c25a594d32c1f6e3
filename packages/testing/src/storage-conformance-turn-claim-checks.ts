import type { SessionStorage, SessionTurnClaims, TurnClaim } from '@keel/spec';
import { expect } from 'vitest';
import { storageConformanceEntries, storageUserMessage } from './storage-conformance-fixtures';
import {
  entryIds,
  expectAborted,
  type StorageCheck,
  settle,
  withStorage,
} from './storage-conformance-support';

/** The storage's turn claims; the check fails when the store has none. */
function claimsOf(storage: SessionStorage): SessionTurnClaims {
  const claims = storage.turnClaims;
  expect(claims, 'the storage has no turnClaims').toBeDefined();
  return claims as SessionTurnClaims;
}

/** Claims `sessionId` for `owner`; fails unless the claim is granted. */
async function claim(
  claims: SessionTurnClaims,
  sessionId: string,
  owner: string,
  turnId: string,
  ttlMs = 60_000,
): Promise<TurnClaim> {
  const result = await claims.claimTurn(sessionId, { owner, turnId, ttlMs });
  expect(result.claimed, `${owner} was refused the claim of ${sessionId}`).toBe(true);
  if (!result.claimed) throw new Error('unreachable');
  return result.claim;
}

/** Polls (event-free stores have nothing to wait on) until `done`, for at most `limitMs`. */
async function eventually(done: () => Promise<boolean>, what: string, limitMs = 20_000) {
  const deadline = Date.now() + limitMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Checks of the turn claims (`SessionStorage.turnClaims`): one running turn per session. */
export const storageTurnClaimChecks: readonly StorageCheck[] = [
  {
    name: 'turn claims: one holder per session; the others are told who holds it',
    run: (context) =>
      withStorage(context, async (storage) => {
        const claims = claimsOf(storage);
        const id = 'conformance-claim';
        expect(await claims.currentTurn(id)).toBeUndefined();
        const first = await claim(claims, id, 'gateway-a', 'turn-1');
        expect(first).toMatchObject({
          sessionId: id,
          owner: 'gateway-a',
          turnId: 'turn-1',
          released: false,
        });
        expect(first.token).toMatch(/^[0-9]+$/);
        expect(await first.isHeld()).toBe(true);
        const holder = { owner: 'gateway-a', turnId: 'turn-1', token: first.token };
        expect(await claims.claimTurn(id, { owner: 'gateway-b', turnId: 'turn-2' })).toEqual({
          claimed: false,
          holder,
        });
        expect(await claims.currentTurn(id)).toEqual(holder);
        // Another session is not affected.
        const other = await claim(claims, 'conformance-claim-other', 'gateway-b', 'turn-3');
        await other.release();
        await first.heartbeat();
        expect(await first.isHeld()).toBe(true);
        await first.release();
        await first.release();
        expect(first.released).toBe(true);
        expect(await first.isHeld()).toBe(false);
        expect(await claims.currentTurn(id)).toBeUndefined();
        const heartbeat = await settle(first.heartbeat());
        expect(heartbeat.ok, 'a released claim heartbeat').toBe(false);
        if (!heartbeat.ok) expect(heartbeat.error).toMatchObject({ keelKind: 'session_takeover' });
      }),
  },
  {
    name: 'turn claims: every claim of a session gets a larger token',
    run: (context) =>
      withStorage(context, async (storage) => {
        const claims = claimsOf(storage);
        const id = 'conformance-claim-tokens';
        const tokens: bigint[] = [];
        for (const owner of ['gateway-a', 'gateway-b', 'gateway-a']) {
          const held = await claim(claims, id, owner, `turn-${tokens.length}`);
          tokens.push(BigInt(held.token));
          await held.release();
        }
        expect(tokens[1]).toBeGreaterThan(tokens[0] as bigint);
        expect(tokens[2]).toBeGreaterThan(tokens[1] as bigint);
      }),
  },
  {
    name: 'turn claims: of concurrent claims exactly one is granted, and every other names it',
    run: (context) =>
      withStorage(context, async (storage) => {
        const claims = claimsOf(storage);
        const id = 'conformance-claim-race';
        const results = await Promise.all(
          ['a', 'b', 'c', 'd', 'e'].map((name) =>
            claims.claimTurn(id, { owner: `gateway-${name}`, turnId: `turn-${name}` }),
          ),
        );
        const granted = results.flatMap((result) => (result.claimed ? [result.claim] : []));
        expect(granted).toHaveLength(1);
        const winner = granted[0] as TurnClaim;
        for (const result of results) {
          if (result.claimed) continue;
          expect(result.holder).toEqual({
            owner: winner.owner,
            turnId: winner.turnId,
            token: winner.token,
          });
        }
        await winner.release();
      }),
  },
  {
    name: 'turn claims: a claim not heartbeated expires; the next claim takes over with a larger token and the late holder is refused',
    run: (context) =>
      withStorage(context, async (storage) => {
        const claims = claimsOf(storage);
        const id = 'conformance-claim-expiry';
        const late = await claim(claims, id, 'gateway-a', 'turn-1', 200);
        await eventually(
          async () => (await claims.currentTurn(id)) === undefined,
          'the claim never expired',
        );
        const next = await claim(claims, id, 'gateway-b', 'turn-2');
        expect(BigInt(next.token)).toBeGreaterThan(BigInt(late.token));
        expect(await late.isHeld()).toBe(false);
        const heartbeat = await settle(late.heartbeat());
        expect(heartbeat.ok, 'the late holder extended a claim taken over').toBe(false);
        if (!heartbeat.ok) {
          expect(heartbeat.error).toMatchObject({ keelKind: 'session_takeover', sessionId: id });
          expect(['lock-lost', 'stale-token']).toContain(
            (heartbeat.error as { change?: unknown }).change,
          );
        }
        // The late holder's release leaves the new claim alone.
        await late.release();
        expect(await next.isHeld()).toBe(true);
        expect(await claims.currentTurn(id)).toEqual({
          owner: 'gateway-b',
          turnId: 'turn-2',
          token: next.token,
        });
        await next.release();
      }),
  },
  {
    name: 'queued messages: a running turn tells queued user messages from any other write',
    run: (context) =>
      withStorage(context, async (storage) => {
        const claims = claimsOf(storage);
        const id = 'conformance-queued';
        // The running turn's own write; it then lets go of the session around a model call.
        const { state: expected } = await storage.append(id, [storageUserMessage('u1')]);
        expect(await claims.queuedSince(id, expected)).toEqual({
          change: undefined,
          state: expected,
          queued: 0,
        });
        // Two messages from gateways that do not hold the turn, written at once as queued.
        await claims.appendQueued(id, [storageUserMessage('q1')]);
        const second = await claims.appendQueued(id, [storageUserMessage('q2')]);
        const seen = await claims.queuedSince(id, expected);
        expect(seen).toMatchObject({ change: undefined, queued: 2 });
        if (seen.change === undefined) {
          expect(await storage.compare(id, seen.state)).toBeUndefined();
          expect(await storage.compare(id, second.state)).toBeUndefined();
        }
        // Any other foreign write is still a change.
        await storage.append(id, [storageUserMessage('x1')]);
        expect(await claims.queuedSince(id, expected)).toEqual({ change: 'appended' });
        expect(await entryIds(storage, id)).toEqual(['u1', 'q1', 'q2', 'x1']);
      }),
  },
  {
    name: 'queued messages: one client message queued at two gateways at once is stored once',
    run: (context) =>
      withStorage(context, async (storage) => {
        const claims = claimsOf(storage);
        const id = 'conformance-queued-repeat';
        const { state: expected } = await storage.append(id, [storageUserMessage('u1')]);
        const retry = (entryId: string) => ({
          ...storageUserMessage(entryId, 'the same words'),
          clientMessageId: 'client-1',
        });
        await Promise.all([
          claims.appendQueued(id, [retry('r1')]),
          claims.appendQueued(id, [retry('r2')]),
        ]);
        const ids = await entryIds(storage, id);
        expect(ids.filter((entryId) => entryId === 'r1' || entryId === 'r2')).toHaveLength(1);
        // Queued again later, with a new message beside it: only the new one is written.
        const { state } = await claims.appendQueued(id, [retry('r3'), storageUserMessage('q1')]);
        expect((await entryIds(storage, id)).slice(2)).toEqual(['q1']);
        expect(await storage.compare(id, state)).toBeUndefined();
        // Nothing left to write: nothing written, and no queued append recorded.
        const { state: unchanged } = await claims.appendQueued(id, [retry('r4')]);
        expect(unchanged).toEqual(state);
        expect(await claims.queuedSince(id, expected)).toMatchObject({
          change: undefined,
          queued: 2,
        });
      }),
  },
  {
    name: "queued messages: a client message stored already is found without waiting for the session's lease",
    run: (context) =>
      withStorage(context, async (storage) => {
        const claims = claimsOf(storage);
        const id = 'conformance-queued-stored';
        const copy = (entryId: string) => ({
          ...storageUserMessage(entryId, 'the same words'),
          clientMessageId: 'client-stored',
        });
        await storage.append(id, [copy('u1')]);
        // The running turn holds the session's lease (a tool runs): a retry of a stored message
        // writes nothing, so it does not wait for the lease (waiting, it would time out).
        const lease = await storage.lease(id);
        try {
          const { state } = await claims.appendQueued(id, [copy('r1')]);
          expect(state).toEqual(await storage.state(id));
          expect(await entryIds(storage, id)).toEqual(['u1']);
        } finally {
          await lease.release();
        }
      }),
  },
  {
    name: 'queued messages: only user messages can be queued; a refused batch writes nothing',
    run: (context) =>
      withStorage(context, async (storage) => {
        const claims = claimsOf(storage);
        const id = 'conformance-queued-refused';
        const { state } = await storage.append(id, [storageUserMessage('u1')]);
        const notUser = storageConformanceEntries().filter(
          (entry) => entry.type !== 'message' || entry.role !== 'user',
        );
        expect(notUser.length).toBeGreaterThan(0);
        for (const entry of notUser) {
          const refused = await settle(claims.appendQueued(id, [storageUserMessage('q1'), entry]));
          expect(refused.ok, `a queued ${entry.type} was accepted`).toBe(false);
        }
        expect(await storage.compare(id, state)).toBeUndefined();
        expect(await claims.queuedSince(id, state)).toEqual({
          change: undefined,
          state,
          queued: 0,
        });
      }),
  },
  {
    name: 'turn claims: waitForChange wakes on an append or a claim let go, else times out; abort rejects',
    run: (context) =>
      withStorage(context, async (storage) => {
        const claims = claimsOf(storage);
        expect(claims.waitForChange, 'the turn claims have no waitForChange').toBeDefined();
        const waitForChange = claims.waitForChange?.bind(claims);
        if (waitForChange === undefined) return;
        const id = 'conformance-wait';
        await storage.append(id, [storageUserMessage('u1')]);
        // A warm-up wait: a store may start listening on its first one.
        await waitForChange(id, { timeoutMs: 50 });
        // Nothing changes: `false` once its time is up.
        expect(await waitForChange(id, { timeoutMs: 100 })).toBe(false);
        // An append: `true`, long before its (long) time is up.
        const LONG = 60_000;
        const appended = waitForChange(id, { timeoutMs: LONG });
        await claims.appendQueued(id, [storageUserMessage('q1')]);
        expect(await appended).toBe(true);
        // A claim let go: the gateways waiting for it look again.
        const held = await claim(claims, id, 'gateway-a', 'turn-1');
        const released = waitForChange(id, { timeoutMs: LONG });
        await held.release();
        expect(await released).toBe(true);
        // Abort: rejects with the signal's reason.
        const controller = new AbortController();
        const aborted = waitForChange(id, { timeoutMs: LONG, signal: controller.signal });
        controller.abort(new Error('stop waiting'));
        await expect(aborted).rejects.toThrow('stop waiting');
      }),
  },
  {
    name: 'turn claims: an aborted signal stops a claim and grants nothing',
    run: (context) =>
      withStorage(context, async (storage) => {
        const claims = claimsOf(storage);
        const id = 'conformance-claim-abort';
        const controller = new AbortController();
        controller.abort(new Error('stop'));
        await expectAborted(
          claims.claimTurn(id, { owner: 'gateway-a', turnId: 't', signal: controller.signal }),
          controller.signal,
          'claimTurn',
        );
        expect(await claims.currentTurn(id)).toBeUndefined();
      }),
  },
];
