// What a lease wait bounded by `lockTimeoutMs` rejects with (create-orchestrator.ts,
// `boundLeaseWait`, line 288), over a fence whose storage reports an aborted wait its own way (as
// `timers/promises` does: an `AbortError` whose cause is the reason) rather than with the signal's
// reason itself: past lockTimeoutMs the caller gets the orchestrator's coordination error; a
// caller's own abort, or any other failure, comes back as the fence threw it. And the wait's abort
// listener on the caller's signal goes at once when it fires (line 278, `{ once: true }`).
// Hand-made mutants, each failing a test here: the condition replaced by `true` or by `false`;
// `&&` made `||`; `caller?.aborted !== true` made `=== true`, `!== false` or `true`; the
// listener added with `{}` or `{ once: false }`.
import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSessionFence } from '@keel/session-fence';
import type { SessionStorage } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const LOCK_TIMEOUT_MS = 50;
const HOUR_MS = 3_600_000;

interface Waits {
  /** Called when a lease wait starts. */
  started: () => void;
}

/**
 * Fences whose storage's lease wait is a plain abortable sleep of an hour (`waits`), or fails at
 * once with `failure`: only the orchestrator's own `lockTimeoutMs` or the caller can end a wait.
 */
function fencesWith(h: () => Harness, waits: Waits, failure?: Error) {
  return (sessionId: string) => {
    const storage = h().storage;
    const slow: SessionStorage = {
      ...storage,
      read: storage.read.bind(storage),
      append: storage.append.bind(storage),
      lease: async (id, options = {}) => {
        waits.started();
        if (failure !== undefined) throw failure;
        await sleep(HOUR_MS, undefined, { signal: options.signal });
        return storage.lease(id, options);
      },
    } as SessionStorage;
    return createSessionFence({ storage: slow, sessionId });
  };
}

async function setUp(failure?: Error): Promise<{ h: Harness; waiting: Promise<void> }> {
  const waits: Waits = { started: () => undefined };
  const waiting = new Promise<void>((resolve) => {
    waits.started = resolve;
  });
  harness = await createHarness({
    overrides: {
      lockTimeoutMs: LOCK_TIMEOUT_MS,
      fences: fencesWith(() => harness!, waits, failure),
    },
  });
  return { h: harness, waiting };
}

describe('a lease wait bounded by lockTimeoutMs', () => {
  it('past lockTimeoutMs rejects with the coordination error, not the fence’s abort error', async () => {
    const { h } = await setUp();
    // A caller signal that never aborts: the wait ends by lockTimeoutMs alone.
    const error = await h.orchestrator
      .selectModel('s1', 'backup/fallback', { signal: new AbortController().signal })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'OrchestratorError', keelKind: 'coordination' });
    expect(String(error)).toContain(`lockTimeoutMs (${LOCK_TIMEOUT_MS} ms)`);
  });

  it('a caller’s abort comes back as the fence’s own error, which carries the caller’s reason', async () => {
    const { h, waiting } = await setUp();
    const controller = new AbortController();
    const selecting = h.orchestrator
      .selectModel('s1', 'backup/fallback', { signal: controller.signal })
      .catch((caught: unknown) => caught);
    await waiting;
    const reason = new Error('the user left');
    controller.abort(reason);
    const error = await selecting;
    expect(error).not.toBe(reason);
    expect(error).toMatchObject({ name: 'AbortError', cause: reason });
  });

  it('a failure of the wait itself comes back as it is', async () => {
    const failure = new Error('lease store down');
    const { h } = await setUp(failure);
    const error = await h.orchestrator
      .selectModel('s1', 'backup/fallback')
      .catch((caught: unknown) => caught);
    expect(error).toBe(failure);
  });

  it('its listener on the caller’s signal is gone as soon as the abort reached it', async () => {
    const { h, waiting } = await setUp();
    const controller = new AbortController();
    const selecting = h.orchestrator
      .selectModel('s1', 'backup/fallback', { signal: controller.signal })
      .catch((caught: unknown) => caught);
    await waiting;
    // `selectModel` hands the caller's signal to the bounded wait as it is: its one listener.
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(await selecting).toMatchObject({ name: 'AbortError' });
  });
});
