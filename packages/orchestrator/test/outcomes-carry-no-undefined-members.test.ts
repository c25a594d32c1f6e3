// Outcomes, their attempt records and every event carry only the members that have a value, all
// the way down: a caller in this process sees `'x' in value`. The files that build them spread
// each optional member only when it has one (`...(x === undefined ? {} : { x })`); a mutant that
// spreads it always (`false ? {} : { x }`) leaves a member set to undefined, found here.
import type { ModelTarget, TurnEvent } from '@keel/spec';
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { budgetKey, createBudgetLedger, type TurnBudgets } from '../src/index';
import { undefinedPaths } from './deep-undefined-members';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const conversation = { messages: [{ role: 'user' as const, content: 'What is 2 + 2?' }] };
const lookup = { name: 'lookup', inputSchema: { type: 'object' } };

/** The undefined members of the harness's events (none, in a correct turn). */
const eventPaths = (events: readonly TurnEvent[]) =>
  events.flatMap((event, index) => undefinedPaths(event, `events[${index}]`));

describe('no member set to undefined, anywhere in an outcome or event', () => {
  it('a stateless call that failed before any output: no finish, usage or firstTokenMs', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'http-error', status: 400 }, match: primary }],
    });
    const outcome = await harness.orchestrator.runCall({ request: conversation });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'invalid_request' });
    expect(undefinedPaths(outcome)).toEqual([]);
    expect(outcome).not.toHaveProperty('finish');
    expect(outcome).not.toHaveProperty('usage');
    expect(outcome.attempts[0]).not.toHaveProperty('firstTokenMs');
    expect(eventPaths(harness.events)).toEqual([]);
  });

  it('a stateless call that answered', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: '4.' }, match: primary }],
    });
    const outcome = await harness.orchestrator.runCall({ request: conversation });
    expect(outcome).toMatchObject({ kind: 'reply', text: '4.', finish: 'stop' });
    expect(undefinedPaths(outcome)).toEqual([]);
    expect(eventPaths(harness.events)).toEqual([]);
  });

  it('a turn whose tool answered without error, and whose model then answered', async () => {
    harness = await createHarness({
      tools: { definitions: [lookup], run: async () => ({ content: 'found' }) },
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ id: 't1', name: 'lookup', input: {} }] },
          match: primary,
        },
        { behavior: { type: 'ok', text: 'done' }, match: primary },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'look' });
    expect(outcome).toMatchObject({ kind: 'reply', text: 'done' });
    expect(undefinedPaths(outcome)).toEqual([]);
    expect(eventPaths(harness.events)).toEqual([]);
  });

  it('every target over budget, past the longest wait: skipped attempts with no decision and no model', async () => {
    const refusing: TurnBudgets = {
      ledger: createBudgetLedger({ clock: { now: () => harness?.clock.now() ?? 0 } }),
      budgetOf: (target: ModelTarget) => ({ key: budgetKey(target), limits: { rpm: 1 } }),
    };
    harness = await createHarness({
      providers: [
        { id: 'anthropic', profiles: [{ id: 'k1' }] },
        { id: 'backup', profiles: [{ id: 'b1' }] },
      ],
      overrides: { budgets: refusing },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    await harness.orchestrator.runTurn({ sessionId: 's2', input: 'two' });
    harness.events.length = 0;
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's3', input: 'three' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'rate_limit' });
    expect(outcome.attempts.every((attempt) => attempt.outcome === 'skipped')).toBe(true);
    expect(undefinedPaths(outcome)).toEqual([]);
    expect(eventPaths(harness.events)).toEqual([]);
  });

  it('every key refused: the turn ends with no retryAfterMs member', async () => {
    harness = await createHarness({
      script: [1, 2, 3, 4].map(() => ({ behavior: mockFaults.unauthorized() })),
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error' });
    expect(undefinedPaths(outcome)).toEqual([]);
    expect(eventPaths(harness.events)).toEqual([]);
  });
});
