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

describe('live model switch', () => {
  it('a switch during a turn is honoured at the next attempt boundary, and the selection persists', async () => {
    harness = await createHarness({
      providers,
      models: { primary: 'anthropic/primary', settings: { 'backup/other': {} } },
      script: [{ behavior: { type: 'http-error', status: 500 }, match: { model: 'primary' } }],
      beforeStreamEnds: () => undefined,
    });
    const off = harness.orchestrator.subscribe((event) => {
      if (event.type === 'attempt-start' && event.attempt === 1)
        void harness!.orchestrator.selectModel('s1', 'backup/other');
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    off();
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/other' });
    expect(harness.decisions()).toEqual(['switch_model']);
    expect(harness.sent().map((request) => request.model)).toEqual(['primary', 'other']);
    // The next turn starts on the selected model.
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'again' });
    expect(harness.sent().at(-1)?.model).toBe('other');
  });

  it('ping-pong switching is bounded at 2 per turn; the selection is healed to the last choice and the next turn is normal', async () => {
    harness = await createHarness({
      providers,
      models: { primary: 'anthropic/a', settings: { 'backup/b': {} } },
      overrides: { retry: { maxRetries: 5 } },
      script: Array.from({ length: 6 }, () => ({
        behavior: { type: 'reset-before-headers' as const },
      })),
    });
    const choices = ['backup/b', 'anthropic/a', 'backup/b'];
    const off = harness.orchestrator.subscribe((event) => {
      if (event.type !== 'attempt-start') return;
      const choice = choices[event.attempt - 1];
      if (choice !== undefined) void harness!.orchestrator.selectModel('s1', choice);
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    off();
    expect(outcome.kind).toBe('error');
    expect(outcome.text).toMatch(/switched several times/);
    expect(harness.decisions()).toEqual(['switch_model', 'switch_model', 'final']);
    expect(harness.sent()).toHaveLength(3);
    const selections = (await harness.entries('s1')).flatMap((entry) =>
      entry.type === 'model-selection' ? [`${entry.source}:${entry.model}`] : [],
    );
    expect(selections).toEqual([
      'user:backup/b',
      'user:anthropic/a',
      'user:backup/b',
      'healed:backup/b',
    ]);
    harness.mock.reset();
    const next = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'again' });
    expect(next).toMatchObject({ kind: 'reply', model: 'backup/b' });
    expect(harness.decisions().slice(3)).toEqual([]);
  });

  it('a fallback is not a switch and never rewrites the selection', async () => {
    harness = await createHarness({
      script: [
        {
          behavior: { type: 'http-error', status: 404, message: 'model: primary' },
          match: { model: 'primary' },
        },
      ],
    });
    await harness.orchestrator.selectModel('s1', 'anthropic/primary');
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    expect(outcome.model).toBe('backup/fallback');
    expect(harness.decisions()).toEqual(['fallback_model']);
    const selections = (await harness.entries('s1')).filter(
      (entry) => entry.type === 'model-selection',
    );
    expect(selections).toHaveLength(1);
    expect(selections[0]).toMatchObject({ model: 'anthropic/primary', source: 'user' });
  });

  it('refuses a model whose provider is not configured', async () => {
    harness = await createHarness();
    await expect(harness.orchestrator.selectModel('s1', 'nowhere/model')).rejects.toMatchObject({
      name: 'OrchestratorConfigError',
    });
    await expect(harness.orchestrator.selectModel('s1', 'no-slash')).rejects.toMatchObject({
      name: 'OrchestratorConfigError',
    });
  });

  it('refuses a model of a configured provider that is not the primary, a fallback or a settings key', async () => {
    harness = await createHarness({
      models: { primary: 'anthropic/primary', settings: { 'anthropic/large': {} } },
    });
    await expect(harness.orchestrator.selectModel('s1', 'anthropic/typo')).rejects.toMatchObject({
      name: 'OrchestratorConfigError',
      message: expect.stringContaining('anthropic/primary, anthropic/large'),
    });
    await harness.orchestrator.selectModel('s1', 'anthropic/large');
    expect((await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' })).model).toBe(
      'anthropic/large',
    );
    expect(
      (await harness.entries('s1')).filter((entry) => entry.type === 'model-selection'),
    ).toHaveLength(1);
  });

  it('a selection goes first, then the configured chain: a failing selection falls back to the primary, then the fallbacks', async () => {
    harness = await createHarness({
      providers,
      models: {
        primary: 'anthropic/primary',
        fallbacks: ['backup/fallback'],
        settings: { 'backup/chosen': {} },
      },
      overrides: { retry: { maxRetries: 0 } },
      script: [
        {
          behavior: { type: 'http-error', status: 404, message: 'no' },
          match: { model: 'chosen' },
        },
        {
          behavior: { type: 'http-error', status: 404, message: 'no' },
          match: { model: 'primary' },
        },
      ],
    });
    await harness.orchestrator.selectModel('s1', 'backup/chosen');
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    expect(harness.sent().map((request) => request.model)).toEqual([
      'chosen',
      'primary',
      'fallback',
    ]);
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
    expect(outcome.attempts.map((attempt) => attempt.decision)).toEqual([
      'fallback_model',
      'fallback_model',
      undefined,
    ]);
  });

  it('a stored selection of a model no longer configured is not honoured: the primary answers', async () => {
    harness = await createHarness({ providers, models: { primary: 'anthropic/primary' } });
    await harness.storage.append('s1', [
      {
        type: 'model-selection',
        id: 'old-choice',
        timestamp: '2026-01-01T00:00:00.000Z',
        model: 'backup/retired',
        source: 'user',
      },
    ]);
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
    expect(outcome.model).toBe('anthropic/primary');
    expect(harness.sent().map((request) => request.model)).toEqual(['primary']);
  });
});
