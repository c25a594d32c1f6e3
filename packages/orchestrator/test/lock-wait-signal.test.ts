/**
 * With `lockTimeoutMs`, a fence's lease wait gets a signal of the orchestrator's own
 * (`boundLeaseWait`): the caller's abort reaches it while the wait runs, and once the wait has
 * ended the caller's signal lets it go (nothing of the wait stays subscribed to the caller).
 */
import { createSessionFence } from '@keel/session-fence';
import type { SessionStorage } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/**
 * Fences whose storage's lease waits ignore their timeout (an hour), tell when a wait starts, and
 * keep the signal each wait was given.
 */
function watchedFences(h: () => Harness, waits: { signals: AbortSignal[]; started?: () => void }) {
  return (sessionId: string) => {
    const storage = h().storage;
    const watched: SessionStorage = {
      ...storage,
      read: storage.read.bind(storage),
      append: storage.append.bind(storage),
      lease: (id, options = {}) => {
        if (options.signal !== undefined) waits.signals.push(options.signal);
        waits.started?.();
        return storage.lease(id, { ...options, timeoutMs: 3_600_000 });
      },
    } as SessionStorage;
    return createSessionFence({ storage: watched, sessionId });
  };
}

describe('the lease wait’s signal under lockTimeoutMs', () => {
  it('a caller abort during the wait ends it: the turn is aborted, nothing sent', {
    timeout: 20_000,
  }, async () => {
    const waits: { signals: AbortSignal[]; started?: () => void } = { signals: [] };
    harness = await createHarness({
      overrides: { lockTimeoutMs: 3_600_000, fences: watchedFences(() => harness!, waits) },
    });
    const other = await harness.storage.lease('s1');
    const controller = new AbortController();
    try {
      const waiting = new Promise<void>((resolve) => {
        waits.started = resolve;
      });
      const running = harness.orchestrator.runTurn({
        sessionId: 's1',
        input: 'hello',
        signal: controller.signal,
      });
      await waiting;
      expect(waits.signals).toHaveLength(1);
      expect(waits.signals[0]?.aborted).toBe(false);
      controller.abort();
      const outcome = await running;
      expect(outcome.kind).toBe('aborted');
      expect(waits.signals[0]?.aborted).toBe(true);
      expect(harness.sent()).toEqual([]);
    } finally {
      await other.release();
    }
  });

  it('once the wait has ended, the caller’s later abort no longer reaches its signal', async () => {
    const waits: { signals: AbortSignal[] } = { signals: [] };
    harness = await createHarness({
      overrides: { lockTimeoutMs: 60_000, fences: watchedFences(() => harness!, waits) },
    });
    // `selectModel` hands its caller's signal to the fence's `acquire` as it is.
    const controller = new AbortController();
    await harness.orchestrator.selectModel('s1', 'backup/fallback', { signal: controller.signal });
    expect(waits.signals).toHaveLength(1);
    controller.abort();
    expect(waits.signals[0]?.aborted).toBe(false);
  });
});
