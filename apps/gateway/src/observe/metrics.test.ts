import type { TurnEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createGatewayMetrics, createLabelBound } from './metrics';

describe('createLabelBound', () => {
  it('keeps the first values, then counts new ones as other', () => {
    const bound = createLabelBound(2);
    expect(bound('a/one')).toBe('a/one');
    expect(bound('a/two')).toBe('a/two');
    expect(bound('a/three')).toBe('other');
    expect(bound('a/one')).toBe('a/one');
  });

  it('counts a value with escapes, bidi controls, spaces or 129 characters as other', () => {
    const bound = createLabelBound();
    for (const value of ['evil\u001b[31m', 'name\u202egpj.exe', 'two words', 'x'.repeat(129), ''])
      expect(bound(value), JSON.stringify(value)).toBe('other');
  });
});

describe('createGatewayMetrics', () => {
  it('mints at most 100 model series, whatever the models are called', async () => {
    const metrics = createGatewayMetrics({ queue: () => ({ runningTurns: 0, queuedTurns: 0 }) });
    for (let index = 0; index < 300; index += 1) {
      const model = index % 2 === 0 ? `model-${index}` : `model-${index}\u001b[2J\u202e`;
      metrics.observe(turnEnd(model));
    }
    const text = await metrics.registry.metrics();
    const series = text.split('\n').filter((line) => line.startsWith('keel_attempts_total{'));
    expect(series.length).toBeLessThanOrEqual(101);
    expect(series.some((line) => line.includes('model="other"'))).toBe(true);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/);
  });
});

describe('keel_budget_unchecked_total', () => {
  it('counts the attempts that left without a budget reservation, by provider and model', async () => {
    const metrics = createGatewayMetrics({ queue: () => ({ runningTurns: 0, queuedTurns: 0 }) });
    metrics.observe(turnEnd('m1', { budget: 'unchecked' }));
    metrics.observe(turnEnd('m1'));
    metrics.observe(turnEnd('m1', { budget: 'unchecked' }));
    metrics.observe(turnEnd('m2'));
    const lines = (await metrics.registry.metrics())
      .split('\n')
      .filter((line) => line.startsWith('keel_budget_unchecked_total{'));
    expect(lines).toEqual(['keel_budget_unchecked_total{provider="p",model="m1"} 2']);
  });
});

function turnEnd(model: string, extra: { budget?: 'unchecked' } = {}): TurnEvent {
  return {
    type: 'turn-end',
    sessionId: 's',
    turnId: 't',
    at: 0,
    outcome: {
      kind: 'reply',
      attempts: [
        {
          target: { providerId: 'p', model },
          outcome: 'ok',
          requestSent: true,
          startedAt: 0,
          endedAt: 1,
          ...extra,
        },
      ],
    },
  } as unknown as TurnEvent;
}
