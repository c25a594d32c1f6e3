/**
 * @keel/session-store-postgres against the file store of @keel/session-fence, side by side in one
 * run: fenced appends per second (one entry under a held lease, as a turn writes) and the storage
 * work of one turn through a session fence (acquire, write the user message, release for the
 * model call, reacquire, write the reply, end). Both are durable: the file store fsyncs, and the
 * PostgreSQL server keeps fsync on. Rounds interleave the stores (order alternating) after a
 * warm-up, and the median round gives each rate.
 *
 * Run: `pnpm build && pnpm bench postgres`. With `DATABASE_URL` set it uses that server (a
 * database it may create schemas in); else it starts a throwaway one (@keel/postgres-test-server).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, startPostgresServer } from '@keel/postgres-test-server';
import type { SessionStorage, TranscriptEntry } from '@keel/session-fence';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import { createPostgresSessionStorage } from '@keel/session-store-postgres';

const warmupRounds = 3;
const rounds = 15;
const appendsPerRound = 100;
const turnsPerRound = 20;

let sequence = 0;
function entry(role: 'user' | 'assistant'): TranscriptEntry {
  sequence += 1;
  const id = `m${sequence}`;
  return {
    type: 'message',
    id,
    messageId: id,
    timestamp: new Date().toISOString(),
    role,
    content: [{ type: 'text', text: `message ${sequence}: ${'lorem ipsum '.repeat(20)}` }],
  };
}

/** Fenced appends: one entry each, under a lease held for the whole round. */
async function appendRound(storage: SessionStorage, sessionId: string): Promise<number> {
  const lease = await storage.lease(sessionId);
  const started = process.hrtime.bigint();
  for (let index = 0; index < appendsPerRound; index += 1) {
    await storage.append(sessionId, [entry('assistant')], { lease });
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await lease.release();
  return appendsPerRound / seconds;
}

/** The storage work of whole turns through a session fence; turns per second. */
async function turnRound(storage: SessionStorage, sessionId: string): Promise<number> {
  const started = process.hrtime.bigint();
  for (let index = 0; index < turnsPerRound; index += 1) {
    const fence = createSessionFence({ storage, sessionId });
    await fence.acquire();
    await fence.append([entry('user')]);
    await fence.release();
    await fence.reacquire();
    await fence.append([entry('assistant')]);
    await fence.end();
  }
  return turnsPerRound / (Number(process.hrtime.bigint() - started) / 1e9);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const external = process.env['DATABASE_URL'];
const server = external ? undefined : await startPostgresServer({ durable: true });
const database = server ? await createDatabase(server.adminUrl, 'bench') : undefined;
const url = external ?? database?.url ?? '';
const sessionsDir = await mkdtemp(join(tmpdir(), 'keel-bench-store-'));
const postgres = createPostgresSessionStorage({
  connectionString: url,
  schema: `bench_${process.pid}`,
  maxConnections: 4,
});
try {
  const stores = [
    {
      name: 'file store (fsync)',
      storage: createTranscriptStore({ sessionsDir }) as SessionStorage,
    },
    { name: 'postgres', storage: postgres as SessionStorage },
  ];
  const results = stores.map((store) => ({
    ...store,
    appends: [] as number[],
    turns: [] as number[],
  }));
  for (let round = 0; round < warmupRounds + rounds; round += 1) {
    const order = round % 2 === 0 ? results : [...results].reverse();
    for (const store of order) {
      const appends = await appendRound(store.storage, `append-${round}`);
      const turns = await turnRound(store.storage, `turn-${round}`);
      if (round >= warmupRounds) {
        store.appends.push(appends);
        store.turns.push(turns);
      }
    }
  }
  console.log(
    `@keel/session-store-postgres vs the file store: ${rounds} interleaved rounds after ${warmupRounds} warm-up rounds,`,
    `${appendsPerRound} appends and ${turnsPerRound} turns a round, ${external ? 'DATABASE_URL' : 'a local server (fsync on, Unix socket)'}`,
  );
  console.table(
    results.map((store) => ({
      store: store.name,
      'fenced appends/s (median)': Math.round(median(store.appends)),
      'turns/s through a fence (median)': Math.round(median(store.turns)),
    })),
  );
  const [file, pg] = results;
  if (file && pg) {
    console.log(
      `postgres / file store: appends ${(median(pg.appends) / median(file.appends)).toFixed(2)}×, turns ${(median(pg.turns) / median(file.turns)).toFixed(2)}×`,
    );
  }
} finally {
  if (external) await postgres.pool.query(`DROP SCHEMA IF EXISTS ${postgres.schema} CASCADE`);
  await postgres.close();
  await database?.drop();
  await server?.stop();
  await rm(sessionsDir, { recursive: true, force: true });
}
