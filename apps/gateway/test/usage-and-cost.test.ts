// Usage and cost of a turn as the gateway reports it: the answer's `usage` and `costUsd`, the
// token and cost counters, and the GenAI usage attributes of the spans — from the turn events
// the orchestrator emits, with the prices of models.settings.
import type { AttemptRecord, TurnEvent, TurnOutcome } from '@keel/spec';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { outcomeBody } from '../src/http/outcome-body';
import { costOf, priceBookOf, turnCost } from '../src/observe/cost-of';
import { createGatewayMetrics } from '../src/observe/metrics';
import { createTurnTracer } from '../src/observe/turn-tracer';

const prices = priceBookOf({
  'a/big': { prices: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
  'o/small': { prices: { input: 0.5, output: 2 } },
  'o/free': {},
});

const attempt = (
  target: string,
  outcome: AttemptRecord['outcome'],
  extra: Partial<AttemptRecord> = {},
): AttemptRecord => {
  const [providerId = '', model = ''] = target.split('/');
  return {
    attempt: 1,
    target: { providerId, profileId: 'k', model },
    startedAt: 1_000,
    endedAt: 2_000,
    requestSent: outcome !== 'skipped',
    outcome,
    ...extra,
  } as AttemptRecord;
};

const turn = (attempts: AttemptRecord[], extra: Partial<TurnOutcome> = {}): TurnOutcome => ({
  kind: 'reply',
  text: 'hi',
  messageId: 'm1',
  turnId: 't1',
  model: 'o/small',
  provider: 'o',
  attempts,
  ...extra,
});

describe('costOf', () => {
  it('bills uncached input, cache reads, cache writes and output at their prices per million', () => {
    expect(
      costOf(
        {
          inputTokens: 1_000_000,
          outputTokens: 100_000,
          cacheReadTokens: 400_000,
          cacheWriteTokens: 100_000,
        },
        { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      ),
    ).toBeCloseTo(0.5 * 3 + 0.4 * 0.3 + 0.1 * 3.75 + 0.1 * 15, 10);
  });

  it('bills cache tokens at the input price when they have none of their own', () => {
    expect(
      costOf(
        { inputTokens: 2_000, outputTokens: 0, cacheReadTokens: 1_000 },
        { input: 1, output: 9 },
      ),
    ).toBeCloseTo(0.002, 10);
  });
});

describe('turnCost', () => {
  const failed = attempt('a/big', 'error', {
    errorKind: 'server_error',
    usage: { inputTokens: 1_000, outputTokens: 10 },
  });
  const answered = attempt('o/small', 'ok', { usage: { inputTokens: 2_000, outputTokens: 500 } });

  it('adds up every attempt that reported usage, failed ones included', () => {
    expect(turnCost(turn([failed, answered]), prices)).toBeCloseTo(
      (1_000 * 3 + 10 * 15 + 2_000 * 0.5 + 500 * 2) / 1e6,
      12,
    );
  });

  it('is absent when a model that reported usage has no prices', () => {
    const unpriced = attempt('o/free', 'ok', { usage: { inputTokens: 5, outputTokens: 5 } });
    expect(turnCost(turn([failed, unpriced]), prices)).toBeUndefined();
    expect(turnCost(turn([attempt('o/small', 'ok')]), prices)).toBeUndefined();
  });

  it("without per-attempt usage, prices the turn's usage at the answering model", () => {
    expect(
      turnCost(
        turn([attempt('o/small', 'ok')], { usage: { inputTokens: 1e6, outputTokens: 0 } }),
        prices,
      ),
    ).toBe(0.5);
  });
});

describe('the answer', () => {
  it('carries usage and costUsd when priced, neither when not reported', () => {
    const usage = { inputTokens: 2_000, outputTokens: 500, cacheReadTokens: 1_000 };
    const body = outcomeBody(turn([attempt('o/small', 'ok', { usage })], { usage }), prices);
    expect(body).toMatchObject({
      model: 'o/small',
      usage,
      costUsd: (1_000 * 0.5 + 1_000 * 0.5 + 500 * 2) / 1e6,
    });
    const bare = outcomeBody(turn([attempt('o/small', 'ok')]), prices);
    expect('usage' in bare || 'costUsd' in bare).toBe(false);
  });
});

describe('metrics', () => {
  it('keel_tokens_total by type and keel_cost_usd_total for priced models', async () => {
    const metrics = createGatewayMetrics({
      queue: () => ({ runningTurns: 0, queuedTurns: 0 }),
      prices,
    });
    const outcome = turn([
      attempt('a/big', 'error', {
        errorKind: 'server_error',
        usage: { inputTokens: 100, outputTokens: 1, cacheReadTokens: 60, cacheWriteTokens: 40 },
      }),
      attempt('a/big', 'skipped'),
      attempt('o/free', 'ok', { usage: { inputTokens: 7, outputTokens: 3 } }),
    ]);
    const event = {
      type: 'turn-end',
      sessionId: 's',
      turnId: 't1',
      at: 3_000,
      outcome,
    } as TurnEvent;
    metrics.observe(event);
    metrics.observe(event);
    const text = await metrics.registry.metrics();
    const value = (series: string) =>
      Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('keel_tokens_total{provider="a",model="big",type="input"}')).toBe(200);
    expect(value('keel_tokens_total{provider="a",model="big",type="output"}')).toBe(2);
    expect(value('keel_tokens_total{provider="a",model="big",type="cache_read"}')).toBe(120);
    expect(value('keel_tokens_total{provider="a",model="big",type="cache_write"}')).toBe(80);
    expect(value('keel_tokens_total{provider="o",model="free",type="input"}')).toBe(14);
    expect(value('keel_tokens_total{provider="o",model="free",type="output"}')).toBe(6);
    expect(text).not.toMatch(/keel_tokens_total\{provider="o",model="free",type="cache_read"\}/);
    expect(value('keel_cost_usd_total{provider="a",model="big"}')).toBeCloseTo(
      (2 * (0 * 3 + 60 * 0.3 + 40 * 3.75 + 1 * 15)) / 1e6,
      12,
    );
    expect(text).not.toMatch(/keel_cost_usd_total\{provider="o"/);
  });
});

describe('spans', () => {
  it('attempt spans carry their usage, the turn span the totals, cache counts included', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const observe = createTurnTracer(provider.getTracer('test'));
    const base = { sessionId: 's', turnId: 't1' };
    const target = { providerId: 'a', profileId: 'k', model: 'big' };
    const usage = { inputTokens: 50, outputTokens: 5, cacheReadTokens: 20, cacheWriteTokens: 10 };
    const events = [
      { ...base, type: 'turn-start', at: 1, messageId: 'm1' },
      { ...base, type: 'attempt-start', at: 2, attempt: 1, target, probe: false },
      { ...base, type: 'model-event', at: 3, attempt: 1, event: { type: 'usage', ...usage } },
      {
        ...base,
        type: 'turn-end',
        at: 4,
        outcome: turn([attempt('a/big', 'ok', { usage })], {
          usage: { inputTokens: 80, outputTokens: 9, cacheReadTokens: 20, cacheWriteTokens: 10 },
        }),
      },
    ] as TurnEvent[];
    for (const event of events) observe(event);
    const [attemptSpan, turnSpan] = exporter.getFinishedSpans();
    expect(attemptSpan?.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 50,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.usage.cache_read.input_tokens': 20,
      'gen_ai.usage.cache_creation.input_tokens': 10,
    });
    expect(turnSpan?.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 80,
      'gen_ai.usage.output_tokens': 9,
      'gen_ai.usage.cache_read.input_tokens': 20,
      'gen_ai.usage.cache_creation.input_tokens': 10,
    });
  });
});
