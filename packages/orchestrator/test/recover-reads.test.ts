// How `recover` reads a session (create-orchestrator.ts): with the caller's signal when there is
// one and with no `signal` member when there is none (a storage adapter sees its options as
// given), and with `minAgeMs` a message exactly that old is due (at least that long ago).
import type { SessionStorage, StorageCallOptions } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, seedUnanswered } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Keeps the options of every read the orchestrator makes. */
function recordingReads(reads: Array<StorageCallOptions | undefined>) {
  return (storage: SessionStorage): SessionStorage =>
    Object.assign(Object.create(storage) as SessionStorage, {
      read(sessionId: string, options?: StorageCallOptions) {
        reads.push(options);
        return storage.read(sessionId, options);
      },
    });
}

describe('recover', () => {
  it('reads with no signal member when the caller gave none', async () => {
    const reads: Array<StorageCallOptions | undefined> = [];
    harness = await createHarness({ wrapStorage: recordingReads(reads) });
    await harness.orchestrator.recover('s1');
    expect(reads[0]).toStrictEqual({});
  });

  it('reads with the caller’s signal', async () => {
    const reads: Array<StorageCallOptions | undefined> = [];
    harness = await createHarness({ wrapStorage: recordingReads(reads) });
    const controller = new AbortController();
    await harness.orchestrator.recover('s1', { signal: controller.signal });
    expect(reads[0]?.signal).toBe(controller.signal);
  });

  it('with minAgeMs, answers a message exactly that old', async () => {
    harness = await createHarness();
    await seedUnanswered(harness, 's1', 30_000);
    const outcomes = await harness.orchestrator.recover('s1', { minAgeMs: 30_000 });
    expect(outcomes.map((outcome) => outcome.messageId)).toEqual(['m1']);
  });

  it('with minAgeMs, leaves a message one millisecond younger', async () => {
    harness = await createHarness();
    await seedUnanswered(harness, 's1', 29_999);
    expect(await harness.orchestrator.recover('s1', { minAgeMs: 30_000 })).toEqual([]);
  });
});
