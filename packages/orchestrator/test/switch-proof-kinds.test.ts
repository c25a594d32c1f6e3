// A model switch waiting when an attempt fails takes precedence over the kind's decision, except
// for the kinds that end the turn either way: a stop, a busy session, a failing store
// (act-on-failure's SWITCH_PROOF). A failing store is never the model's fault (NOT_THE_MODEL).
import { createSessionFence, SessionLockTimeoutError, StorageError } from '@keel/session-fence';
import type { HealthReport, SessionStorage } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';
import { recordingHealth } from './recording-health';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/**
 * A harness whose fences' `compare` throws `failure` once the first model stream ends: the check
 * the fence makes when it takes the session back after the model call fails, so the attempt fails
 * with that error. With `switchFirst`, the user switches models just before.
 */
async function failingAtReacquire(
  failure: Error,
  options: { switchFirst: boolean; reports?: HealthReport[] },
): Promise<Harness> {
  let armed = false;
  const storageOf = (): SessionStorage => {
    const storage = (harness as Harness).storage;
    return new Proxy(storage, {
      get(target, property) {
        if (property === 'compare' && armed) return () => Promise.reject(failure);
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
  return createHarness({
    overrides: {
      fences: (sessionId) => createSessionFence({ storage: storageOf(), sessionId }),
      ...(options.reports === undefined ? {} : { health: recordingHealth(options.reports) }),
    },
    beforeStreamEnds: async () => {
      if (armed) return;
      if (options.switchFirst) await harness?.orchestrator.selectModel('s1', 'backup/fallback');
      armed = true;
    },
  });
}

const full = () =>
  new StorageError({ reason: 'no_space', operation: 'compare', sessionId: 's1', code: 'ENOSPC' });
const busy = () => new SessionLockTimeoutError({ lockPath: '/tmp/s1.lock', timeoutMs: 50 });

describe('kinds a waiting model switch does not outrank', () => {
  it('storage: the turn ends error/storage, no switch_model, one request', async () => {
    harness = await failingAtReacquire(full(), { switchFirst: true });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'storage' });
    expect(harness.decisions()).toEqual(['final']);
    expect(harness.sent()).toHaveLength(1);
  });

  it('coordination: the turn ends error/coordination, no switch_model, one request', async () => {
    harness = await failingAtReacquire(busy(), { switchFirst: true });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'coordination' });
    expect(harness.decisions()).toEqual(['final']);
    expect(harness.sent()).toHaveLength(1);
  });

  it('caller_abort: the turn ends aborted, no switch_model, one request', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'stall', afterChunks: 1 }, match: { model: 'primary' } }],
    });
    const controller = new AbortController();
    const off = harness.orchestrator.subscribe((event) => {
      if (event.type !== 'model-event' || controller.signal.aborted) return;
      // The user switches models while the first attempt streams; then the caller goes away.
      void harness?.orchestrator
        .selectModel('s1', 'backup/fallback')
        .then(() => controller.abort());
    });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      signal: controller.signal,
    });
    off();
    expect(outcome).toMatchObject({ kind: 'aborted', errorKind: 'caller_abort' });
    expect(harness.decisions()).toEqual(['final']);
    expect(harness.sent()).toHaveLength(1);
  });
});

describe('a failing store is not the model’s failure', () => {
  it('an attempt failing with storage reports nothing to provider health', async () => {
    const reports: HealthReport[] = [];
    harness = await failingAtReacquire(full(), { switchFirst: false, reports });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'storage' });
    expect(harness.decisions()).toEqual(['final']);
    expect(reports.filter((report) => report.type === 'failure')).toEqual([]);
  });

  it('an attempt failing with coordination is reported (only storage is spared)', async () => {
    const reports: HealthReport[] = [];
    harness = await failingAtReacquire(busy(), { switchFirst: false, reports });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(reports.filter((report) => report.type === 'failure')).toMatchObject([
      { kind: 'coordination' },
    ]);
  });
});
