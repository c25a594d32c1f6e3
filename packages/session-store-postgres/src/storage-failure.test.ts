/**
 * A database that is down or frozen fails the store's calls with a `StorageError` (kind
 * `storage`) within the pool's timeouts — never a hang, never a raw driver error a classifier
 * would take for a model provider's connection — and the store works again once the database
 * does. The frozen database is real: its own server, every process of it stopped with SIGSTOP.
 */
import { execFileSync } from 'node:child_process';
import { classifyError } from '@keel/error-classification';
import {
  type PostgresServer,
  startPostgresServer,
  useTestDatabase,
} from '@keel/postgres-test-server';
import type { TranscriptIssue } from '@keel/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionIdFor, userText } from '../test/transcript-fixtures';
import { createPostgresSessionStorage } from './postgres-session-storage';
import { PostgresStoreError, StorageError } from './postgres-store-error';

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/** The server and every backend it forked (all stopped together, as SIGSTOP on a host would). */
function serverProcesses(server: PostgresServer): number[] {
  const children = (() => {
    try {
      return execFileSync('pgrep', ['-P', String(server.pid)], { encoding: 'utf8' });
    } catch {
      return '';
    }
  })();
  return [server.pid, ...children.split('\n').filter(Boolean).map(Number)];
}

function signalServer(server: PostgresServer, signal: 'SIGSTOP' | 'SIGCONT'): void {
  for (const pid of serverProcesses(server)) {
    try {
      process.kill(pid, signal);
    } catch {
      // A backend that ended meanwhile.
    }
  }
}

describe('a database that is down', () => {
  it('fails every call (turn claims included) with a storage error (unavailable), classified storage, not connection', async () => {
    const store = createPostgresSessionStorage({
      connectionString: 'postgresql://postgres@localhost/keel?host=/nonexistent/keel-test-socket',
      timeouts: { connectMs: 2_000 },
    });
    const claims = store.turnClaims!;
    const noTranscript = { exists: false, identity: '', size: 0, tailLength: 0, tailDigest: '' };
    for (const call of [
      () => store.lease('down'),
      () => store.append('down', [userText('lost')]),
      () => store.read('down'),
      () => store.ping(),
      () => claims.claimTurn('down', { owner: 'gw-a', turnId: 't1' }),
      () => claims.currentTurn('down'),
      () => claims.appendQueued('down', [userText('queued')]),
      () => claims.queuedSince('down', noTranscript),
    ]) {
      const error = await rejection(call());
      expect(StorageError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ keelKind: 'storage', reason: 'unavailable' });
      expect(classifyError(error).kind).toBe('storage');
      expect(classifyError((error as Error).cause).kind).not.toBe('storage');
    }
    await store.close();
  });

  it('refuses timeouts that are not a positive number of ms', () => {
    expect(() =>
      createPostgresSessionStorage({
        connectionString: 'postgresql://x/y',
        timeouts: { queryMs: 0 },
      }),
    ).toThrow(/timeouts.queryMs must be a positive number of ms/);
  });
});

describe('a frozen database (SIGSTOP)', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  });
  afterAll(async () => {
    signalServer(server, 'SIGCONT');
    await server.stop();
  });

  it('fails reads, writes, leases and pings within the timeouts; works again once it runs', async () => {
    const store = createPostgresSessionStorage({
      connectionString: server.adminUrl,
      maxConnections: 4,
      timeouts: { connectMs: 1_000, queryMs: 1_500, statementMs: 1_000 },
    });
    const sessionId = sessionIdFor('frozen');
    const lease = await store.lease(sessionId);
    await store.append(sessionId, [userText('before the freeze')], { lease });
    await lease.release();

    signalServer(server, 'SIGSTOP');
    try {
      // A connection of the pool (a query that never gets an answer) and a new one (no answer
      // to the startup message): each call ends with the storage error instead of waiting.
      const calls = [
        () => store.read(sessionId),
        () => store.append(sessionId, [userText('during the freeze')]),
        () => store.lease(sessionId),
        () => store.ping(),
      ];
      for (const call of calls) {
        const error = await rejection(call());
        expect(StorageError.isInstance(error), String(error)).toBe(true);
        expect(error).toMatchObject({ keelKind: 'storage', reason: 'unavailable' });
      }
    } finally {
      signalServer(server, 'SIGCONT');
    }

    await store.ping();
    const read = await store.read(sessionId);
    expect(read.entries.map((entry) => (entry.type === 'message' ? entry.content : []))).toEqual([
      [{ type: 'text', text: 'before the freeze' }],
    ]);
    await store.close();
  });
});

describe('rows that cannot be read', () => {
  const database = useTestDatabase();

  it('are reported to onIssues with the session and the row, not dropped silently', async () => {
    const reports: Array<{ sessionId: string; issues: readonly TranscriptIssue[] }> = [];
    const store = createPostgresSessionStorage({
      pool: database.pool(),
      onIssues: (report) => reports.push(report),
    });
    const sessionId = sessionIdFor('corrupt');
    await store.append(sessionId, [userText('a'), userText('b')]);
    await database.query(
      `UPDATE keel.transcript_entries SET entry = '{"type":' WHERE session_id = $1 AND seq = 1`,
      [sessionId],
    );
    expect(reports).toEqual([]);
    await store.read(sessionId);
    await store.readTail(sessionId);
    expect(reports).toEqual([
      {
        sessionId,
        issues: [expect.objectContaining({ line: 2, offset: 1, reason: 'invalid-json' })],
      },
      { sessionId, issues: [expect.objectContaining({ offset: 1, reason: 'invalid-json' })] },
    ]);
  });

  it("keeps the store's own errors as they are (a closed store is no storage failure)", async () => {
    const store = createPostgresSessionStorage({ pool: database.pool() });
    await store.close();
    const error = await rejection(store.read('closed'));
    expect(PostgresStoreError.isInstance(error)).toBe(true);
    expect(StorageError.isInstance(error)).toBe(false);
  });
});
