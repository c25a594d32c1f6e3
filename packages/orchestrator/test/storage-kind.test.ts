// A store that fails (a full disk, a frozen database) ends the turn at once with the storage kind:
// no retry, no other model, no takeover, never a model switch, never counted against the model.
import { createSessionFence, StorageError } from '@keel/session-fence';
import type { HealthReport, SessionStorage } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';
import { recordingHealth } from './recording-health';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const full = (operation: string) =>
  new StorageError({ reason: 'no_space', operation, sessionId: 's1', code: 'ENOSPC' });

/**
 * Fences over the harness's store whose `lease` fails once `options.leaseFails()` says so, and whose
 * `append` fails when `failAppend` says so (armed while the model answers: the next append is the
 * reply's — the file store keeps its lease across the model call, so no lease is taken before it).
 */
function failingFences(
  h: () => Harness,
  options: { leaseFails?: () => boolean; failAppend?: (call: number) => boolean },
) {
  let appends = 0;
  return (sessionId: string) => {
    const storage = h().storage;
    const failing: SessionStorage = {
      ...storage,
      read: storage.read.bind(storage),
      state: storage.state.bind(storage),
      compare: storage.compare.bind(storage),
      lease: (id, leaseOptions) => {
        if (options.leaseFails?.()) return Promise.reject(full('lease'));
        return storage.lease(id, leaseOptions);
      },
      append: (id, entries, appendOptions) => {
        appends += 1;
        if (options.failAppend?.(appends)) return Promise.reject(full('append'));
        return storage.append(id, entries, appendOptions);
      },
    } as SessionStorage;
    return createSessionFence({ storage: failing, sessionId });
  };
}

describe('the storage kind', () => {
  it('a store failing after the model answered ends the turn error/storage: one request, no retry, no fallback, nothing blamed on the model', async () => {
    const reports: HealthReport[] = [];
    let armed = false;
    harness = await createHarness({
      overrides: {
        fences: failingFences(() => harness as Harness, { failAppend: () => armed }),
        health: recordingHealth(reports),
      },
      beforeStreamEnds: () => {
        armed = true;
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'storage' });
    expect(harness.sent()).toHaveLength(1);
    // The attempt itself succeeded: nothing decided a retry or another model (a failed reacquire,
    // when the lease had to be taken again, decides `final` for the same reason).
    expect(harness.decisions()).toEqual([]);
    expect(reports.filter((report) => report.type === 'failure')).toEqual([]);
    expect(outcome.text).not.toMatch(/provider/i);
  });

  it('ends the turn even while a model switch is waiting', async () => {
    let armed = false;
    harness = await createHarness({
      overrides: { fences: failingFences(() => harness as Harness, { failAppend: () => armed }) },
      beforeStreamEnds: async () => {
        // The user switches models while the first attempt streams; then the store fails.
        await harness?.orchestrator.selectModel('s1', 'backup/fallback');
        armed = true;
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'storage' });
    expect(harness.sent()).toHaveLength(1);
    expect(harness.decisions()).not.toContain('switch_model');
    // The switch itself was recorded: it was pending when the store failed.
    const entries = await harness.entries('s1');
    expect(entries.some((entry) => entry.type === 'model-selection')).toBe(true);
  });

  it("a failed write of the user's message ends the turn before any request", async () => {
    harness = await createHarness({
      overrides: {
        fences: failingFences(() => harness as Harness, { failAppend: (call) => call === 1 }),
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'storage' });
    expect(harness.sent()).toEqual([]);
  });
});
