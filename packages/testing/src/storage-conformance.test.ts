/**
 * The storage conformance kit judges: a correct in-memory storage passes every check, and each
 * flaw is caught by the check that guards against it.
 */
import { describe, expect, it } from 'vitest';
import { type MemoryStorageFlaw, memoryStorage } from '../test/memory-storage';
import { describeSessionStorageConformance, sessionStorageChecks } from './storage-conformance';
import type { StorageCheckContext } from './storage-conformance-support';

describeSessionStorageConformance('a reference in-memory storage', async () => ({
  storage: memoryStorage(),
  cleanup: async () => {},
}));

const caughtBy: ReadonlyArray<[MemoryStorageFlaw, string]> = [
  ['lossy-round-trip', 'appends then reads back every entry type'],
  ['unbounded-tail', 'readTail reads at most maxBytes'],
  ['blind-compare', 'state and compare'],
  ['interleaved-batches', 'a batch is appended whole and contiguous'],
  ['partial-invalid-batch', 'a batch with an invalid entry is refused whole'],
  ['all-calls-orphaned', 'inspectTrailingToolUses names only the unanswered calls'],
  ['lists-leases', 'list names every session with a transcript, and only those'],
  ['shared-leases', 'a lease is exclusive'],
  ['reused-tokens', 'fencing tokens are decimal and only grow'],
  ['no-token-check', 'an append with a stale lease is refused'],
  ['no-expected-check', 'an append whose expected state changed is refused'],
  ['creates-on-refusal', 'a refused append of a session that does not exist yet leaves it missing'],
  ['ignores-abort', 'every call honours an aborted signal'],
  ['miscounted-text', 'a read that measures its text counts its entries'],
  ['blind-read-since', 'readSince, when a store has it'],
];

async function failingChecks(flaw: MemoryStorageFlaw): Promise<string[]> {
  const context: StorageCheckContext = {
    create: async () => ({ storage: memoryStorage(flaw), cleanup: async () => {} }),
    options: { contendedLeaseTimeoutMs: 50 },
  };
  const failing: string[] = [];
  for (const check of sessionStorageChecks) {
    try {
      await check.run(context);
    } catch {
      failing.push(check.name);
    }
  }
  return failing;
}

describe('the storage conformance kit', () => {
  it('names a check for every flaw it is shown to catch', () => {
    for (const [, name] of caughtBy) {
      expect(
        sessionStorageChecks.some((check) => check.name.includes(name)),
        name,
      ).toBe(true);
    }
  });

  it.each(caughtBy)('catches a storage with the flaw %s', async (flaw, name) => {
    const failing = await failingChecks(flaw);
    expect(
      failing.some((check) => check.includes(name)),
      `failing: ${failing.join('; ')}`,
    ).toBe(true);
  });
});
