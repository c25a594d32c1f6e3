import { createSessionFence, StorageError } from '@keel/session-fence';
import type { ModelTarget, SessionStorage, TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { budgetKey, createBudgetLedger, type TurnBudgets } from '../src/index';
import { createHarness, type Harness } from './harness';

// `steer`: the outcome each caller gets whose message waited for the next turn and was written with
// its message. Folded into that turn's model call, or its write in doubt (the turn ended with a
// storage error): that turn's outcome, under the caller's own message. Written but never folded
// (the turn ended before any model call): a turn of its own.

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** One request a minute for the primary's only profile: the second turn gets none. */
function oneRequestAMinute(): TurnBudgets {
  return {
    ledger: createBudgetLedger({ clock: { now: () => harness?.clock.now() ?? 0 } }),
    budgetOf(target: ModelTarget) {
      const key = budgetKey(target);
      return key === 'anthropic/primary#k1' ? { key, limits: { rpm: 1 } } : undefined;
    },
  };
}

/**
 * A `steer` harness with one model and one profile on a budget of one request a minute (used up by
 * a turn in another session), whose opening writes' fsync fails once `state.failFlush` is set.
 */
async function overBudgetHarness() {
  const state = { failFlush: false };
  let counted: SessionStorage | undefined;
  const h = await createHarness({
    models: { primary: 'anthropic/primary' },
    providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
    wrapStorage: (storage) => {
      const wrapped = Object.create(storage) as SessionStorage;
      wrapped.append = async (sessionId, entries, options) => {
        const result = await storage.append(sessionId, entries, options);
        if (!state.failFlush || options?.flush !== 'deferred') return result;
        const durable = Promise.reject(
          new StorageError({ reason: 'no_space', operation: 'append', sessionId }),
        );
        durable.catch(() => undefined);
        return { ...result, durable };
      };
      counted = wrapped;
      return storage;
    },
    overrides: {
      queueMode: 'steer',
      budgets: oneRequestAMinute(),
      retry: { maxWaitMs: 10_000 },
      fences: (sessionId) => createSessionFence({ storage: counted!, sessionId }),
    },
  });
  harness = h;
  await h.orchestrator.runTurn({ sessionId: 'other', input: 'uses the budget' });
  return { h, state };
}

/** Three messages at once: the first opens the wait, the other two join it. */
function burst(h: Harness): Promise<TurnOutcome[]> {
  return Promise.all([
    h.orchestrator.runTurn({ sessionId: 's1', input: 'one', clientMessageId: 'c1' }),
    h.orchestrator.runTurn({ sessionId: 's1', input: 'two', clientMessageId: 'c2' }),
    h.orchestrator.runTurn({ sessionId: 's1', input: 'three' }),
  ]);
}

describe('steer: the outcome of a message written with the next turn', () => {
  it('folded in: exactly that turn’s outcome, under its own message (and clientMessageId, when it has one)', async () => {
    harness = await createHarness({ overrides: { queueMode: 'steer' } });
    const [first, second, third] = await burst(harness);
    expect(first!.steeredMessageIds).toEqual([second!.messageId, third!.messageId]);
    const { clientMessageId: _, ...turn } = first!;
    // Nothing of a stored copy (a stored outcome lists no attempts): the turn's own outcome.
    expect(first!.attempts).toHaveLength(1);
    expect(second).toStrictEqual({ ...turn, messageId: second!.messageId, clientMessageId: 'c2' });
    expect(third).toStrictEqual({ ...turn, messageId: third!.messageId });
    expect(harness.sent()).toHaveLength(1);
  });

  it('never folded (the turn ended before any model call): each message gets a turn of its own', async () => {
    const { h } = await overBudgetHarness();
    const [first, second, third] = await burst(h);
    for (const outcome of [first, second, third])
      expect(outcome).toMatchObject({ kind: 'error', errorKind: 'rate_limit' });
    expect(first!.steeredMessageIds).toBeUndefined();
    expect(new Set([first, second, third].map((outcome) => outcome!.turnId)).size).toBe(3);
    expect(second).toMatchObject({ clientMessageId: 'c2' });
    expect(h.sent()).toHaveLength(1);
  });

  it('its write in doubt (the turn’s fsync failed, no model call): that turn’s storage error', async () => {
    const { h, state } = await overBudgetHarness();
    state.failFlush = true;
    const [first, second, third] = await burst(h);
    for (const outcome of [first, second, third])
      expect(outcome).toMatchObject({ kind: 'error', errorKind: 'storage' });
    expect(first!.steeredMessageIds).toBeUndefined();
    expect(second!.turnId).toBe(first!.turnId);
    expect(third!.turnId).toBe(first!.turnId);
    expect(new Set([first, second, third].map((outcome) => outcome!.messageId)).size).toBe(3);
    expect(second).toMatchObject({ clientMessageId: 'c2' });
    expect(third).not.toHaveProperty('clientMessageId');
  });
});
