import { useTestDatabase } from '@keel/postgres-test-server';
import { createSessionFence } from '@keel/session-fence';
import { describe, expect, it } from 'vitest';
import { takeoverOf } from '../test/takeover-of';
import { assistantText, sessionIdFor, userText } from '../test/transcript-fixtures';
import { createPostgresSessionStorage } from './postgres-session-storage';

const database = useTestDatabase();
const gateway = () => createPostgresSessionStorage({ pool: database.pool() });

async function rowsOf(sessionId: string) {
  const { rows } = await database.query(
    `SELECT (SELECT count(*)::int FROM keel.transcript_entries WHERE session_id = $1) AS entries,
      (SELECT count(*)::int FROM keel.transcripts WHERE session_id = $1) AS transcripts`,
    [sessionId],
  );
  return rows[0] as { entries: number; transcripts: number };
}

describe('append over PostgreSQL', () => {
  it('is all or nothing when the database fails in the middle of a batch', async () => {
    const storage = gateway();
    await storage.migrate();
    await database.query(`CREATE OR REPLACE FUNCTION test_fail_third() RETURNS trigger
      LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.entry LIKE '%fail here%' THEN RAISE EXCEPTION 'the disk is full (test)'; END IF;
        RETURN NEW;
      END $$;
      CREATE OR REPLACE TRIGGER test_fail_third BEFORE INSERT ON keel.transcript_entries
        FOR EACH ROW EXECUTE FUNCTION test_fail_third()`);
    const sessionId = sessionIdFor('atomic');
    const batch = [userText('one'), userText('two'), userText('fail here'), userText('four')];
    await expect(storage.append(sessionId, batch)).rejects.toThrow(/disk is full/);
    expect(await rowsOf(sessionId)).toEqual({ entries: 0, transcripts: 0 });

    const { state } = await storage.append(sessionId, [userText('one')]);
    await expect(storage.append(sessionId, batch.slice(1))).rejects.toThrow(/disk is full/);
    expect(await rowsOf(sessionId)).toEqual({ entries: 1, transcripts: 1 });
    expect(await storage.state(sessionId)).toEqual(state);
    await database.query('DROP TRIGGER test_fail_third ON keel.transcript_entries');
  });

  it('notices a transcript replaced, truncated or rewritten under a recorded state', async () => {
    const storage = gateway();
    const replaced = sessionIdFor('replaced');
    const first = (await storage.append(replaced, [userText('a')])).state;
    await database.query('DELETE FROM keel.transcript_entries WHERE session_id = $1', [replaced]);
    await database.query('DELETE FROM keel.transcripts WHERE session_id = $1', [replaced]);
    await gateway().append(replaced, [userText('a again')]);
    expect(await storage.compare(replaced, first)).toBe('replaced');

    const truncated = sessionIdFor('truncated');
    const two = (await storage.append(truncated, [userText('a'), userText('b')])).state;
    await database.query('DELETE FROM keel.transcript_entries WHERE session_id = $1 AND seq = 2', [
      truncated,
    ]);
    await database.query('UPDATE keel.transcripts SET last_seq = 1 WHERE session_id = $1', [
      truncated,
    ]);
    expect(await storage.compare(truncated, two)).toBe('truncated');

    const rewritten = sessionIdFor('rewritten');
    const kept = (await storage.append(rewritten, [userText('a'), userText('b')])).state;
    await database.query(
      `UPDATE keel.transcript_entries SET digest = 'sha256:other' WHERE session_id = $1 AND seq = 2`,
      [rewritten],
    );
    expect(await storage.compare(rewritten, kept)).toBe('rewritten');
    const refused = await takeoverOf(
      storage.append(rewritten, [userText('c')], { expected: kept }),
    );
    expect(refused.change).toBe('rewritten');
  });

  it('reports rows it cannot read as issues instead of failing the read', async () => {
    const storage = gateway();
    const sessionId = sessionIdFor('issues');
    await storage.append(sessionId, [userText('a'), userText('b'), userText('c')]);
    await database.query(
      `UPDATE keel.transcript_entries SET entry = '{"type":' WHERE session_id = $1 AND seq = 1`,
      [sessionId],
    );
    await database.query(
      `UPDATE keel.transcript_entries SET format_version = 99 WHERE session_id = $1 AND seq = 2`,
      [sessionId],
    );
    const read = await storage.read(sessionId);
    expect(read.entries).toHaveLength(1);
    expect(read.issues).toEqual([
      expect.objectContaining({ line: 2, offset: 1, reason: 'invalid-json' }),
      {
        line: 3,
        offset: 2,
        reason: 'invalid-entry',
        detail: 'unsupported transcript format version 99',
      },
    ]);
  });

  it('serves a session fence: a write by another gateway while the turn waits on the model is a takeover', async () => {
    const turnGateway = gateway();
    const sessionId = sessionIdFor('fence');
    await turnGateway.append(sessionId, [userText('question')]);
    const fence = createSessionFence({ storage: turnGateway, sessionId });
    await fence.acquire();
    await fence.append([assistantText('thinking…')]);
    await fence.release();
    await fence.append([userText('steered in through the fence')]);
    const other = gateway();
    const lease = await other.lease(sessionId);
    await other.append(sessionId, [userText('written by another gateway')], { lease });
    await lease.release();
    const error = await fence.reacquire().catch((reason: unknown) => reason);
    expect(error).toMatchObject({ keelKind: 'session_takeover', change: 'appended' });
    expect(fence.takeover).toBe(error);
    await fence.end();
    expect((await other.read(sessionId)).entries).toHaveLength(4);
  });

  it('a fence over this store turns a stale lease at write time into the fence’s takeover', async () => {
    const storage = createPostgresSessionStorage({
      pool: database.pool(),
      lease: { heartbeatMs: 3_600_000, ttlMs: 150 },
    });
    const sessionId = sessionIdFor('fence-stale');
    const fence = createSessionFence({ storage, sessionId });
    await fence.acquire();
    const taker = gateway();
    const lease = await taker.lease(sessionId, { timeoutMs: 30_000 });
    const error = await fence
      .append([assistantText('too late')])
      .catch((reason: unknown) => reason);
    expect(error).toMatchObject({ keelKind: 'session_takeover', change: 'stale-token' });
    await fence.end();
    await lease.release();
    expect((await taker.state(sessionId)).exists).toBe(false);
  });
});
