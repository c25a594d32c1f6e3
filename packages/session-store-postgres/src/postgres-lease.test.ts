import { once } from 'node:events';
import { useTestDatabase } from '@keel/postgres-test-server';
import type { LeaseEvent } from '@keel/spec';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { takeoverOf } from '../test/takeover-of';
import { sessionIdFor, userText } from '../test/transcript-fixtures';
import type { PostgresPool } from './postgres-pool';
import { createPostgresSessionStorage } from './postgres-session-storage';
import { PostgresStoreError, SessionLeaseTimeoutError } from './postgres-store-error';

const database = useTestDatabase();

/** A store that renews its leases only when asked (`renew()`), so that one can expire while held. */
function withoutHeartbeat() {
  return createPostgresSessionStorage({ pool: database.pool(), lease: { heartbeatMs: 3_600_000 } });
}

function gateway() {
  return createPostgresSessionStorage({ pool: database.pool() });
}

/** Resolves with the first event of `type` that `events` receives. */
function nextEvent(events: EventTarget, type: LeaseEvent['type']) {
  return once(events, type).then(([event]) => (event as CustomEvent<LeaseEvent>).detail);
}

function eventSink() {
  const events = new EventTarget();
  const onEvent = (event: LeaseEvent) => {
    events.dispatchEvent(new CustomEvent(event.type, { detail: event }));
  };
  return { events, onEvent };
}

afterEach(() => {
  vi.useRealTimers();
});

/** Makes every renewal of the session's lease fail in the database (a trigger), until the row is deleted. */
async function failRenewalsOf(sessionId: string): Promise<void> {
  await database.query(`CREATE TABLE IF NOT EXISTS test_failing_renewals (session_id text PRIMARY KEY);
    CREATE OR REPLACE FUNCTION test_fail_renewal() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM test_failing_renewals WHERE session_id = NEW.session_id) THEN
        RAISE EXCEPTION 'renewal refused by the test';
      END IF;
      RETURN NEW;
    END $$;
    CREATE OR REPLACE TRIGGER test_fail_renewal BEFORE UPDATE ON keel.session_leases
      FOR EACH ROW EXECUTE FUNCTION test_fail_renewal();
    INSERT INTO test_failing_renewals VALUES ('${sessionId}')`);
}

describe('leases over PostgreSQL', () => {
  it('keeps the fencing counter in a row that outlives every lease: tokens never restart', async () => {
    const storage = gateway();
    const sessionId = sessionIdFor('counter');
    const first = await storage.lease(sessionId);
    await first.release();
    const rows = await database.query(
      'SELECT (SELECT count(*) FROM keel.session_leases WHERE session_id = $1) AS leases, (SELECT token::text FROM keel.session_fences WHERE session_id = $1) AS token',
      [sessionId],
    );
    expect(rows.rows[0]).toEqual({ leases: '0', token: first.token });
    const second = await storage.lease(sessionId);
    expect(BigInt(second.token)).toBe(BigInt(first.token) + 1n);
    await second.release();
  });

  it('keeps tokens as exact decimal strings beyond 2^53', async () => {
    const storage = gateway();
    const sessionId = sessionIdFor('big');
    await (await storage.lease(sessionId)).release();
    await database.query('UPDATE keel.session_fences SET token = $2 WHERE session_id = $1', [
      sessionId,
      '9007199254740993',
    ]);
    const lease = await storage.lease(sessionId);
    expect(lease.token).toBe('9007199254740994');
    await storage.append(sessionId, [userText('big token')], { lease });
    await lease.release();
    const stale = await takeoverOf(storage.append(sessionId, [userText('x')], { lease }));
    expect(stale.change).toBe('lock-lost');
  });

  it('judges expiry by the database clock, not this process clock', async () => {
    const holder = gateway();
    const sessionId = sessionIdFor('clock');
    const lease = await holder.lease(sessionId, { ttlMs: 60_000 });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 24 * 3_600_000);
    const error = await gateway()
      .lease(sessionId, { timeoutMs: 300 })
      .catch((reason: unknown) => reason);
    expect(SessionLeaseTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ keelKind: 'coordination', holder: expect.any(String) });
    vi.useRealTimers();
    expect(await lease.isHeld()).toBe(true);
    await lease.release();
  });

  it('a held lease stays alive past its ttl by its heartbeat', async () => {
    const holder = gateway();
    const sessionId = sessionIdFor('heartbeat');
    // Renewed every ~700 ms; four renewals later (> 2 s) it is past its first expiry.
    const lease = await holder.lease(sessionId, { ttlMs: 2_000 });
    const expiries = new Set<string>();
    let expired = false;
    while (expiries.size < 5 && !expired) {
      const { rows } = await database.query(
        `SELECT expires_at::text AS at, expires_at <= clock_timestamp() AS expired
          FROM keel.session_leases WHERE session_id = $1`,
        [sessionId],
      );
      expiries.add(String(rows[0]?.at));
      expired = rows[0]?.expired === true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(expired, 'the lease expired while held').toBe(false);
    expect(await lease.isHeld()).toBe(true);
    await expect(gateway().lease(sessionId, { timeoutMs: 0 })).rejects.toThrow(/Timed out/);
    await holder.append(sessionId, [userText('still mine')], { lease });
    await lease.release();
  });

  it('a lease that expired unrenewed is lost: its writes are refused, another gateway takes over', async () => {
    const { events, onEvent } = eventSink();
    const holder = withoutHeartbeat();
    const sessionId = sessionIdFor('expired');
    const lease = await holder.lease(sessionId, { ttlMs: 200, onEvent });
    const lost = nextEvent(events, 'lease-lost');
    const taker = gateway();
    const next = await taker.lease(sessionId, { timeoutMs: 30_000 });
    expect(BigInt(next.token) > BigInt(lease.token)).toBe(true);
    expect(await lease.isHeld()).toBe(false);
    expect(await lost).toEqual({ type: 'lease-lost', sessionId, token: lease.token });
    const refused = await takeoverOf(holder.append(sessionId, [userText('late')], { lease }));
    expect(refused.change).toBe('stale-token');
    await taker.append(sessionId, [userText('new holder')], { lease: next });
    expect((await taker.read(sessionId)).entries).toHaveLength(1);
    await next.release();
  });

  it('an expired lease nobody took yet is lock-lost, and renew does not revive it', async () => {
    const holder = withoutHeartbeat();
    const sessionId = sessionIdFor('lapsed');
    const lease = await holder.lease(sessionId, { ttlMs: 100 });
    while (await lease.isHeld()) await new Promise((resolve) => setTimeout(resolve, 20));
    const refused = await takeoverOf(holder.append(sessionId, [userText('late')], { lease }));
    expect(refused.change).toBe('lock-lost');
    expect((await takeoverOf(lease.renew())).change).toBe('lock-lost');
    expect((await holder.state(sessionId)).exists).toBe(false);
  });

  it('a heartbeat that fails is reported as lease-renew-failed, and the lease is kept once renewals work again', async () => {
    const { events, onEvent } = eventSink();
    const holder = gateway();
    const sessionId = sessionIdFor('renew-failed');
    const lease = await holder.lease(sessionId, { ttlMs: 3_000, onEvent });
    await failRenewalsOf(sessionId);
    const event = await nextEvent(events, 'lease-renew-failed');
    expect(event).toMatchObject({ type: 'lease-renew-failed', sessionId, token: lease.token });
    expect(String((event as { error: unknown }).error)).toMatch(/renewal refused by the test/);
    await database.query('DELETE FROM test_failing_renewals WHERE session_id = $1', [sessionId]);
    await lease.renew();
    expect(await lease.isHeld()).toBe(true);
    await lease.release();
  });

  it('a lease throwing listener is ignored', async () => {
    const storage = withoutHeartbeat();
    const sessionId = sessionIdFor('listener');
    const lease = await storage.lease(sessionId, {
      ttlMs: 100,
      onEvent: () => {
        throw new Error('observer bug');
      },
    });
    await (await gateway().lease(sessionId, { timeoutMs: 30_000 })).release();
    expect(await lease.isHeld()).toBe(false);
  });

  it('refuses a lease of another session, or one this package did not issue', async () => {
    const storage = gateway();
    const lease = await storage.lease(sessionIdFor('mine'));
    const refused = await storage
      .append(sessionIdFor('other'), [userText('x')], { lease })
      .catch((error: unknown) => error);
    expect(PostgresStoreError.isInstance(refused)).toBe(true);
    const forged = { ...lease, token: '999999' };
    await expect(
      storage.append(lease.sessionId, [userText('x')], { lease: forged }),
    ).rejects.toThrow(/not issued/);
    await lease.release();
  });

  it("an append that names only expected writes under this store's live lease, or waits for the holder", async () => {
    const storage = gateway();
    const sessionId = sessionIdFor('expected-only');
    const lease = await storage.lease(sessionId);
    const state = await storage.state(sessionId);
    const { state: after } = await storage.append(sessionId, [userText('one')], {
      expected: state,
    });
    expect(await lease.isHeld()).toBe(true);
    const other = createPostgresSessionStorage({
      pool: database.pool(),
      lease: { timeoutMs: 200 },
    });
    await expect(other.append(sessionId, [userText('two')], { expected: after })).rejects.toThrow(
      /Timed out/,
    );
    await lease.release();
    await other.append(sessionId, [userText('two')], { expected: after });
    expect((await other.read(sessionId)).entries).toHaveLength(2);
    const tokens = await database.query(
      'SELECT token::text AS token FROM keel.session_fences WHERE session_id = $1',
      [sessionId],
    );
    expect(BigInt(tokens.rows[0]?.token)).toBe(BigInt(lease.token) + 1n);
  });

  it('a lease granted as its caller aborts is let go at once, never left held', async () => {
    const controller = new AbortController();
    const real = database.pool();
    // The caller aborts while the transaction that grants the lease is running.
    const pool: PostgresPool = {
      query: (text, values) => real.query(text, values),
      end: () => real.end(),
      async connect() {
        const client = await real.connect();
        return {
          release: (error) => client.release(error),
          async query(text, values) {
            const result = await client.query(text, values);
            if (text.includes('INSERT INTO "keel".session_leases'))
              controller.abort(new Error('stop'));
            return result;
          },
        };
      },
    };
    const storage = createPostgresSessionStorage({ pool });
    const sessionId = sessionIdFor('abort-granted');
    await expect(storage.lease(sessionId, { signal: controller.signal })).rejects.toThrow('stop');
    const next = await gateway().lease(sessionId, { timeoutMs: 0 });
    await next.release();
  });

  it("a waiting lease rejects with the signal's own reason", async () => {
    const sessionId = sessionIdFor('abort-reason');
    const held = await gateway().lease(sessionId);
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const waiting = gateway().lease(sessionId, { signal: controller.signal, timeoutMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort(reason);
    expect(await waiting.catch((error: unknown) => error)).toBe(reason);
    await held.release();
  });

  it('close() releases live leases at once and refuses later calls; a store it opened ends its pool', async () => {
    const storage = createPostgresSessionStorage({ connectionString: database.url });
    const sessionId = sessionIdFor('close');
    const lease = await storage.lease(sessionId, { ttlMs: 600_000 });
    await storage.close();
    expect(lease.released).toBe(true);
    const next = await gateway().lease(sessionId, { timeoutMs: 0 });
    await next.release();
    await expect(storage.read(sessionId)).rejects.toThrow(/closed/);
    await storage.close();
  });
});
