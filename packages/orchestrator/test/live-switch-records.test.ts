import type { TurnEvent } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const providers = [
  { id: 'anthropic', profiles: [{ id: 'k1' }] },
  { id: 'backup', profiles: [{ id: 'b1' }] },
];
const decisionEvents = (h: Harness) =>
  h.events
    .filter((event): event is Extract<TurnEvent, { type: 'decision' }> => event.type === 'decision')
    .map(({ label, reason, from, to }) => ({ label, reason, from, to }));

/** Selects `choices[n]` when attempt n + 1 starts. */
function switchAt(h: Harness, choices: Array<string | undefined>) {
  return h.orchestrator.subscribe((event) => {
    if (event.type !== 'attempt-start') return;
    const choice = choices[event.attempt - 1];
    if (choice !== undefined) void h.orchestrator.selectModel('s1', choice);
  });
}

describe('a live switch is recorded truthfully', () => {
  it('the attempt it interrupts says switch_model, after earlier ones; the event names where from and where to', async () => {
    harness = await createHarness({
      providers,
      models: { primary: 'anthropic/primary', settings: { 'backup/other': {} } },
      overrides: { retry: { maxRetries: 3 } },
      script: [
        { behavior: { type: 'http-error', status: 500 }, match: { model: 'primary' }, times: 3 },
      ],
    });
    const off = switchAt(harness, [undefined, undefined, 'backup/other']);
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    off();
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/other' });
    expect(outcome.attempts.map((attempt) => [attempt.outcome, attempt.decision])).toEqual([
      ['error', 'retry_same'],
      ['error', 'retry_same'],
      ['error', 'switch_model'],
      ['ok', undefined],
    ]);
    expect(decisionEvents(harness).at(-1)).toEqual({
      label: 'switch_model',
      reason: 'switch_model',
      from: { providerId: 'anthropic', profileId: 'k1', model: 'primary' },
      to: { providerId: 'backup', profileId: 'b1', model: 'other' },
    });
  });

  it('selecting the model the turn already runs on is no switch: no decision, no switch counted', async () => {
    harness = await createHarness({
      providers,
      models: { primary: 'anthropic/primary', settings: { 'backup/other': {} } },
      overrides: { maxModelSwitches: 0 },
      script: [{ behavior: { type: 'http-error', status: 500 }, match: { model: 'primary' } }],
    });
    const off = switchAt(harness, ['anthropic/primary']);
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    off();
    expect(outcome).toMatchObject({ kind: 'reply', model: 'anthropic/primary' });
    expect(harness.decisions()).toEqual(['retry_same']);
  });

  it('a switch past maxModelSwitches ends the turn; its final event names the model it was on', async () => {
    harness = await createHarness({
      providers,
      models: { primary: 'anthropic/primary', settings: { 'backup/other': {} } },
      overrides: { maxModelSwitches: 0 },
      script: [{ behavior: { type: 'http-error', status: 500 }, match: { model: 'primary' } }],
    });
    const off = switchAt(harness, ['backup/other']);
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    off();
    expect(outcome.kind).toBe('error');
    expect(decisionEvents(harness).at(-1)).toEqual({
      label: 'final',
      reason: 'switch_limit',
      from: { providerId: 'anthropic', profileId: 'k1', model: 'primary' },
      to: undefined,
    });
  });

  it('a switch between tool steps leaves the answered attempt without a decision', async () => {
    harness = await createHarness({
      providers,
      models: { primary: 'anthropic/primary', settings: { 'backup/other': {} } },
      tools: {
        definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
        async run() {
          await harness!.orchestrator.selectModel('s1', 'backup/other');
          return { content: 'found' };
        },
      },
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ id: 't1', name: 'lookup', input: {} }] },
          match: { model: 'primary' },
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/other' });
    expect(outcome.attempts.map((attempt) => [attempt.outcome, attempt.decision])).toEqual([
      ['ok', undefined],
      ['ok', undefined],
    ]);
    expect(harness.decisions()).toEqual(['switch_model']);
  });
});
