import { useTestDatabase } from '@keel/postgres-test-server';
import { describeSessionStorageConformance } from '@keel/testing/vitest';
import { describe, expect, it } from 'vitest';
import { describeSessionStorageBehaviour } from '../test/session-storage-behaviour';
import { userText } from '../test/transcript-fixtures';
import { createPostgresSessionStorage } from './postgres-session-storage';

const database = useTestDatabase();
const pools: ReturnType<typeof database.pool>[] = [];
let next = 0;
let schemas = 0;

function gatewayPool(index: number) {
  pools[index] ??= database.pool();
  return pools[index];
}

/** A fresh, empty storage (a schema of its own) and its cleanup, for the conformance kit. */
async function freshStorage() {
  schemas += 1;
  const storage = createPostgresSessionStorage({
    pool: database.pool({ max: 4 }),
    schema: `fresh_${schemas}`,
  });
  return { storage, cleanup: () => storage.close() };
}

// The same suite the file store passes (@keel/testing), so both stores keep one contract.
describeSessionStorageConformance('postgres', freshStorage, {
  timeoutMs: 60_000,
  turnClaims: true,
});

// Each handle is one "gateway": its own store (leases, heartbeats) over one of three pools.
describeSessionStorageBehaviour('postgres', {
  create: () => {
    next += 1;
    return createPostgresSessionStorage({ pool: gatewayPool(next % 3), lease: { ttlMs: 5_000 } });
  },
});

describe('schemas', () => {
  it('keep stores apart: a fresh schema holds no session of another', async () => {
    const first = await freshStorage();
    const second = await freshStorage();
    try {
      await first.storage.append('only-in-first', [userText('hello')]);
      expect(await first.storage.list()).toEqual(['only-in-first']);
      expect(await second.storage.list()).toEqual([]);
      expect((await second.storage.read('only-in-first')).exists).toBe(false);
    } finally {
      await Promise.all([first.cleanup(), second.cleanup()]);
    }
  });
});

describe('reads', () => {
  it('measure the text their entries were parsed from (what a cache weighs them by)', async () => {
    const { storage, cleanup } = await freshStorage();
    try {
      const entries = [userText('hello'), userText('メッセージ')];
      await storage.append('measured', entries);
      const read = await storage.read('measured');
      const chars = entries.reduce((sum, entry) => sum + JSON.stringify(entry).length, 0);
      expect(read.text).toEqual({ chars, wide: true });
      const tail = await storage.readTail('measured', { maxBytes: 10_000 });
      expect(tail.text).toEqual({ chars, wide: true });
    } finally {
      await cleanup();
    }
  });
});
