import type { SessionLease } from '@keel/spec';
import { expect } from 'vitest';
import { storageUserMessage } from './storage-conformance-fixtures';
import {
  entryIds,
  expectAborted,
  expectRefused,
  type StorageCheck,
  settle,
  withStorage,
} from './storage-conformance-support';

/** Checks of leases, fencing tokens, refused writes and abort signals. */
export const storageLeaseChecks: readonly StorageCheck[] = [
  {
    name: 'a lease is exclusive: a second lease times out with a coordination error, then succeeds after release',
    run: (context) =>
      withStorage(context, async (storage) => {
        const id = 'conformance-exclusive';
        const first = await storage.lease(id);
        expect(first.sessionId).toBe(id);
        expect(first.released).toBe(false);
        expect(await first.isHeld()).toBe(true);
        const contended = await settle(
          storage.lease(id, { timeoutMs: context.options.contendedLeaseTimeoutMs }),
        );
        expect(contended.ok, 'a second lease was granted while the first was held').toBe(false);
        if (!contended.ok) expect(contended.error).toMatchObject({ keelKind: 'coordination' });
        // Another session is not affected.
        const other = await storage.lease('conformance-exclusive-other');
        await other.release();
        await first.renew();
        await first.release();
        await first.release();
        expect(first.released).toBe(true);
        expect(await first.isHeld()).toBe(false);
        const second = await storage.lease(id, { timeoutMs: 10_000 });
        expect(await second.isHeld()).toBe(true);
        await second.release();
      }),
  },
  {
    name: 'fencing tokens are decimal and only grow, across leases and releases',
    run: (context) =>
      withStorage(context, async (storage) => {
        const tokens: bigint[] = [];
        for (let round = 0; round < 5; round += 1) {
          const lease = await storage.lease('conformance-tokens');
          expect(lease.token).toMatch(/^\d+$/);
          tokens.push(BigInt(lease.token));
          if (round === 2) await storage.append('conformance-tokens', [storageUserMessage('w')]);
          await lease.release();
        }
        for (let index = 1; index < tokens.length; index += 1) {
          expect(
            tokens[index]! > tokens[index - 1]!,
            `token ${tokens[index]} after ${tokens[index - 1]}`,
          ).toBe(true);
        }
      }),
  },
  {
    name: 'an append with a stale lease is refused (stale-token) and writes nothing',
    run: (context) =>
      withStorage(context, async (storage) => {
        const id = 'conformance-stale';
        const old = await storage.lease(id);
        await storage.append(id, [storageUserMessage('with-old')], { lease: old });
        await old.release();
        const current = await storage.lease(id);
        expect(BigInt(current.token) > BigInt(old.token)).toBe(true);
        await expectRefused(
          storage.append(id, [storageUserMessage('late-1'), storageUserMessage('late-2')], {
            lease: old,
          }),
          id,
          ['stale-token'],
        );
        expect(await entryIds(storage, id)).toEqual(['with-old']);
        expect(await old.isHeld()).toBe(false);
        const renewed = await settle(old.renew());
        expect(renewed.ok, 'renew() of a lease that was replaced resolved').toBe(false);
        if (!renewed.ok) expect(renewed.error).toMatchObject({ keelKind: 'session_takeover' });
        await storage.append(id, [storageUserMessage('with-current')], { lease: current });
        await current.release();
        // Still refused once the newer lease is gone too.
        await expectRefused(storage.append(id, [storageUserMessage('later')], { lease: old }), id, [
          'stale-token',
        ]);
        expect(await entryIds(storage, id)).toEqual(['with-old', 'with-current']);
      }),
  },
  {
    name: 'an append whose expected state changed is refused (with and without a lease) and writes nothing',
    run: (context) =>
      withStorage(context, async (storage) => {
        const id = 'conformance-expected';
        const created = await storage.append(id, [storageUserMessage('first')]);
        await storage.append(id, [storageUserMessage('foreign')]);
        await expectRefused(
          storage.append(id, [storageUserMessage('mine')], { expected: created.state }),
          id,
          ['appended'],
        );
        const lease = await storage.lease(id);
        try {
          const expected = await storage.state(id);
          await storage.append(id, [storageUserMessage('foreign-2')]);
          await expectRefused(
            storage.append(id, [storageUserMessage('mine-2')], { lease, expected }),
            id,
            ['appended'],
          );
          const accepted = await storage.append(id, [storageUserMessage('mine-3')], {
            lease,
            expected: await storage.state(id),
          });
          expect(await storage.compare(id, accepted.state)).toBeUndefined();
        } finally {
          await lease.release();
        }
        expect(await entryIds(storage, id)).toEqual(['first', 'foreign', 'foreign-2', 'mine-3']);
        // A session that did not exist when its state was taken.
        const missing = await storage.state('conformance-expected-new');
        await storage.append('conformance-expected-new', [storageUserMessage('creator')]);
        await expectRefused(
          storage.append('conformance-expected-new', [storageUserMessage('late')], {
            expected: missing,
          }),
          'conformance-expected-new',
          ['appended'],
        );
        expect(await entryIds(storage, 'conformance-expected-new')).toEqual(['creator']);
      }),
  },
  {
    name: 'a refused append of a session that does not exist yet leaves it missing',
    run: (context) =>
      withStorage(context, async (storage) => {
        const id = 'conformance-refused-new';
        const old = await storage.lease(id);
        await old.release();
        const current = await storage.lease(id);
        await expectRefused(storage.append(id, [storageUserMessage('x')], { lease: old }), id, [
          'stale-token',
        ]);
        await current.release();
        expect((await storage.read(id)).exists).toBe(false);
        expect(await storage.list()).toEqual([]);
      }),
  },
  {
    name: 'every call honours an aborted signal, and a waiting lease wakes on abort',
    run: (context) =>
      withStorage(context, async (storage) => {
        const id = 'conformance-abort';
        await storage.append(id, [storageUserMessage('kept')]);
        const state = await storage.state(id);
        const aborted = new AbortController();
        aborted.abort();
        const signal = aborted.signal;
        await expectAborted(storage.read(id, { signal }), signal, 'read');
        await expectAborted(storage.readTail(id, { signal }), signal, 'readTail');
        await expectAborted(storage.state(id, { signal }), signal, 'state');
        await expectAborted(storage.compare(id, state, { signal }), signal, 'compare');
        await expectAborted(storage.lease(id, { signal }), signal, 'lease');
        await expectAborted(
          storage.append(id, [storageUserMessage('never')], { signal }),
          signal,
          'append',
        );
        await expectAborted(
          storage.inspectTrailingToolUses(id, { signal }),
          signal,
          'inspectTrailingToolUses',
        );
        await expectAborted(storage.list({ signal }), signal, 'list');
        expect(await entryIds(storage, id)).toEqual(['kept']);

        const holder = await storage.lease(id);
        let waiting: Promise<SessionLease> | undefined;
        try {
          const controller = new AbortController();
          // Only the abort can end this wait: its timeout is far beyond the test's.
          waiting = storage.lease(id, { signal: controller.signal, timeoutMs: 3_600_000 });
          controller.abort();
          await expectAborted(waiting, controller.signal, 'a waiting lease');
        } finally {
          await holder.release();
        }
        // The aborted wait left nothing held behind.
        const after = await storage.lease(id, { timeoutMs: 10_000 });
        await after.release();
      }),
  },
];
