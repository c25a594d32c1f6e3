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
 * Fences over a storage whose lease waits ignore any timeout they are given (an hour instead):
 * only the orchestrator's own `lockTimeoutMs` can end a wait for a busy session. Without it a
 * test here would hang until vitest's timeout.
 */
function patientFences(h: () => Harness) {
  return (sessionId: string) => {
    const storage = h().storage;
    const patient: SessionStorage = {
      ...storage,
      read: storage.read.bind(storage),
      append: storage.append.bind(storage),
      lease: (id, options = {}) => storage.lease(id, { ...options, timeoutMs: 3_600_000 }),
    } as SessionStorage;
    return createSessionFence({ storage: patient, sessionId });
  };
}

describe('lockTimeoutMs bounds the lease wait whatever the fence allows', () => {
  it('a turn on a busy session ends error/coordination after lockTimeoutMs, sends nothing, ends once, and the session works once free', {
    timeout: 20_000,
  }, async () => {
    harness = await createHarness({
      overrides: { lockTimeoutMs: 1_000, fences: patientFences(() => harness!) },
    });
    const other = await harness.storage.lease('s1');
    let outcome: Awaited<ReturnType<Harness['orchestrator']['runTurn']>>;
    try {
      outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    } finally {
      await other.release();
    }
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'coordination', attempts: [] });
    expect(harness.sent()).toEqual([]);
    expect(harness.events.filter((event) => event.type === 'turn-end')).toHaveLength(1);
    // The abandoned wait let go: the next turn takes the lease and answers with one request.
    const next = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'again' });
    expect(next.kind).toBe('reply');
    expect(harness.sent()).toHaveLength(1);
  });

  it('selectModel on a busy session rejects with a coordination error after lockTimeoutMs', {
    timeout: 20_000,
  }, async () => {
    harness = await createHarness({
      overrides: { lockTimeoutMs: 1_000, fences: patientFences(() => harness!) },
    });
    const other = await harness.storage.lease('s1');
    try {
      const error = await harness.orchestrator
        .selectModel('s1', 'backup/fallback')
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ keelKind: 'coordination' });
      expect(String(error)).toContain('lockTimeoutMs (1000 ms)');
    } finally {
      await other.release();
    }
  });

  it('a caller abort while waiting stays an abort, not a coordination error', {
    timeout: 20_000,
  }, async () => {
    harness = await createHarness({
      overrides: { lockTimeoutMs: 3_600_000, fences: patientFences(() => harness!) },
    });
    const other = await harness.storage.lease('s1');
    const controller = new AbortController();
    try {
      const running = harness.orchestrator.runTurn({
        sessionId: 's1',
        input: 'hello',
        signal: controller.signal,
      });
      controller.abort();
      const outcome = await running;
      expect(outcome.kind).toBe('aborted');
      expect(harness.sent()).toEqual([]);
    } finally {
      await other.release();
    }
  });
});
