import type { AttemptRecord, ModelTarget } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { coolingNotice, costOf, formatUsd, triedModel, usageText } from './turn-summary';

const primary: ModelTarget = { providerId: 'anthropic', profileId: 'a', model: 'claude' };
const backup: ModelTarget = { providerId: 'openai', profileId: 'main', model: 'gpt' };
const record = (
  attempt: number,
  target: ModelTarget,
  fields: Partial<AttemptRecord>,
): AttemptRecord => ({
  attempt,
  target,
  startedAt: attempt,
  endedAt: attempt,
  requestSent: true,
  probe: false,
  outcome: 'error',
  ...fields,
});

describe('triedModel', () => {
  it('names the model that answered', () => {
    expect(
      triedModel('openai/gpt', [
        record(1, primary, { errorKind: 'overloaded', decision: 'fallback_model' }),
        record(2, backup, { outcome: 'ok' }),
      ]),
    ).toBe('openai/gpt');
  });

  it('names the last model sent a request, not a later one that was only skipped', () => {
    expect(
      triedModel('openai/gpt', [
        record(1, primary, { errorKind: 'rate_limit', decision: 'fallback_model' }),
        record(2, backup, { requestSent: false, outcome: 'skipped', decision: 'final' }),
      ]),
    ).toBe('anthropic/claude');
  });

  it('names none when every attempt was skipped', () => {
    expect(
      triedModel('openai/gpt', [
        record(1, primary, { requestSent: false, outcome: 'skipped' }),
        record(2, backup, { requestSent: false, outcome: 'skipped' }),
      ]),
    ).toBeUndefined();
  });

  it("trusts the outcome's model when there are no records", () => {
    expect(triedModel('openai/gpt', undefined)).toBe('openai/gpt');
  });
});

describe('coolingNotice', () => {
  it('says every candidate was cooling, with the wait, for an error with retryAfterMs', () => {
    expect(coolingNotice('error', 4200)).toBe(
      'Every candidate was cooling (breaker open or profile cooling): nothing to try for 4.20 s (retryAfterMs 4200).',
    );
  });

  it('says nothing for an error without a wait, or a reply', () => {
    expect(coolingNotice('error', undefined)).toBeUndefined();
    expect(coolingNotice('reply', 4200)).toBeUndefined();
  });
});

describe('usageText', () => {
  it('tells input, the cache parts, output and cost', () => {
    expect(
      usageText(
        { inputTokens: 2257, outputTokens: 40, cacheReadTokens: 2048, cacheWriteTokens: 188 },
        0.0123,
      ),
    ).toBe('2,257 in (2,048 cache read, 188 cache write) · 40 out · $0.01');
  });

  it('leaves out the cache parts and the cost nobody reported', () => {
    expect(usageText({ inputTokens: 31, outputTokens: 9 })).toBe('31 in · 9 out');
  });
});

describe('costOf and formatUsd', () => {
  it('reads costUsd from an outcome that carries it', () => {
    const outcome = { costUsd: 0.0012 } as unknown as Parameters<typeof costOf>[0];
    expect(costOf(outcome)).toBe(0.0012);
    expect(costOf(undefined)).toBeUndefined();
  });

  it('keeps small costs readable', () => {
    expect(formatUsd(1.254)).toBe('$1.25');
    expect(formatUsd(0.0012)).toBe('$0.0012');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(0.0000001)).toBe('<$0.000001');
  });
});
