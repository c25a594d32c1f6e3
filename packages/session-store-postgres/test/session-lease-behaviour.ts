import { classifyError } from '@keel/error-classification';
import type { SessionLease } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import type { SessionStorageBehaviourOptions } from './session-storage-behaviour';
import { takeoverOf } from './takeover-of';
import { assistantText, sessionIdFor, userText } from './transcript-fixtures';

/** The lease half of the port's behaviour (see `session-storage-behaviour.ts`). */
export function describeSessionLeaseBehaviour(
  name: string,
  options: SessionStorageBehaviourOptions,
): void {
  describe(`${name}: leases and fencing tokens`, () => {
    it('every new lease of a session has a larger token, across releases, as a decimal string', async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('tokens');
      const tokens: bigint[] = [];
      for (let round = 0; round < 4; round += 1) {
        const lease = await storage.lease(sessionId);
        expect(lease.token).toMatch(/^[0-9]+$/);
        expect(lease.sessionId).toBe(sessionId);
        tokens.push(BigInt(lease.token));
        await lease.release();
        expect(lease.released).toBe(true);
      }
      for (let index = 1; index < tokens.length; index += 1) {
        expect(tokens[index]! > tokens[index - 1]!).toBe(true);
      }
    });

    it('a second lease waits for the first to be released', async () => {
      const storage = await options.create();
      const other = await options.create();
      const sessionId = sessionIdFor('wait');
      const first = await storage.lease(sessionId);
      let second: SessionLease | undefined;
      const waiting = other.lease(sessionId, { timeoutMs: 30_000 }).then((lease) => {
        second = lease;
        return lease;
      });
      expect(await first.isHeld()).toBe(true);
      expect(second).toBeUndefined();
      await first.release();
      const granted = await waiting;
      expect(BigInt(granted.token) > BigInt(first.token)).toBe(true);
      expect(await first.isHeld()).toBe(false);
      expect(await granted.isHeld()).toBe(true);
      await granted.release();
    });

    it('a lease not granted within timeoutMs is a coordination error', async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('timeout');
      const held = await storage.lease(sessionId);
      const error = await (await options.create())
        .lease(sessionId, { timeoutMs: 150 })
        .catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(Error);
      expect((error as { keelKind?: string }).keelKind).toBe('coordination');
      expect(classifyError(error).kind).toBe('coordination');
      await held.release();
    });

    it('a waiting lease wakes on abort', async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('abort-wait');
      const held = await storage.lease(sessionId);
      const controller = new AbortController();
      const waiting = (await options.create()).lease(sessionId, {
        timeoutMs: 60_000,
        signal: controller.signal,
      });
      controller.abort(new Error('user pressed stop'));
      await expect(waiting).rejects.toThrow('user pressed stop');
      await held.release();
    });

    it("a write with a superseded lease is refused as stale-token and writes nothing; the new holder's writes land", async () => {
      const storage = await options.create();
      const other = await options.create();
      const sessionId = sessionIdFor('stale');
      const old = await storage.lease(sessionId);
      await storage.append(sessionId, [userText('under the first lease')], { lease: old });
      await old.release();
      const current = await other.lease(sessionId);
      await other.append(sessionId, [assistantText('under the second lease')], { lease: current });
      const before = await other.state(sessionId);
      const refused = await takeoverOf(
        storage.append(sessionId, [userText('late')], { lease: old }),
      );
      expect(refused).toMatchObject({ change: 'stale-token', phase: 'write' });
      expect(await other.state(sessionId)).toEqual(before);
      await other.append(sessionId, [assistantText('still mine')], { lease: current });
      expect((await other.read(sessionId)).entries.map((entry) => entry.id)).toHaveLength(3);
      await current.release();
    });

    it('a write with a lease its holder released is refused as lock-lost', async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('released');
      const lease = await storage.lease(sessionId);
      await lease.release();
      const refused = await takeoverOf(storage.append(sessionId, [userText('x')], { lease }));
      expect(refused.change).toBe('lock-lost');
      expect((await storage.state(sessionId)).exists).toBe(false);
    });

    it('renew keeps a held lease; renewing a superseded one is a takeover', async () => {
      const storage = await options.create();
      const sessionId = sessionIdFor('renew');
      const lease = await storage.lease(sessionId);
      await lease.renew();
      expect(await lease.isHeld()).toBe(true);
      await lease.release();
      const next = await (await options.create()).lease(sessionId);
      const refused = await takeoverOf(lease.renew());
      expect(['stale-token', 'lock-lost']).toContain(refused.change);
      await next.release();
    });

    it('release is idempotent', async () => {
      const storage = await options.create();
      const lease = await storage.lease(sessionIdFor('idempotent'));
      await lease.release();
      await lease.release();
      expect(await lease.isHeld()).toBe(false);
    });

    it('two gateways racing for one session never hold it at once, and every write lands once, in order', async () => {
      const gateways = [await options.create(), await options.create()];
      const sessionId = sessionIdFor('race');
      const held: string[] = [];
      let holders = 0;
      let overlap = false;
      const work = gateways.map(async (storage, gateway) => {
        for (let round = 0; round < 8; round += 1) {
          const lease = await storage.lease(sessionId, { timeoutMs: 60_000 });
          holders += 1;
          if (holders > 1) overlap = true;
          held.push(lease.token);
          await storage.append(sessionId, [userText(`g${gateway} r${round} t${lease.token}`)], {
            lease,
          });
          holders -= 1;
          await lease.release();
        }
      });
      await Promise.all(work);
      expect(overlap).toBe(false);
      expect(new Set(held).size).toBe(16);
      const texts = (await gateways[0]!.read(sessionId)).entries.map((entry) =>
        entry.type === 'message' && entry.content[0]?.type === 'text' ? entry.content[0].text : '',
      );
      const tokens = texts.map((text) => BigInt(text.split(' t')[1] ?? '0'));
      expect(texts).toHaveLength(16);
      expect(tokens).toEqual([...tokens].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    });
  });
}
