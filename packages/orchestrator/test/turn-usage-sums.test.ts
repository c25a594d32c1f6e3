// A turn's usage (turn-usage.ts) adds up every attempt that reported some, failed ones included;
// cache counts are added only from the attempts that gave them and appear only when one did.
import type { AttemptRecord, Usage } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { turnUsage } from '../src/turn-usage';

const attempt = (usage?: Usage): AttemptRecord => ({
  attempt: 1,
  target: { providerId: 'anthropic', profileId: 'k1', model: 'primary' },
  startedAt: 0,
  endedAt: 1,
  requestSent: true,
  probe: false,
  outcome: usage === undefined ? 'error' : 'ok',
  ...(usage === undefined ? {} : { usage }),
});

describe('turnUsage', () => {
  it('is undefined when no attempt reported usage', () => {
    expect(turnUsage([])).toBeUndefined();
    expect(turnUsage([attempt()])).toBeUndefined();
  });

  it('adds every reported count; cache counts from the attempts that have them', () => {
    expect(
      turnUsage([
        attempt({ inputTokens: 10, outputTokens: 1, cacheReadTokens: 7 }),
        attempt(),
        attempt({ inputTokens: 20, outputTokens: 2, cacheWriteTokens: 5 }),
        attempt({ inputTokens: 30, outputTokens: 3, cacheReadTokens: 4, cacheWriteTokens: 6 }),
      ]),
    ).toStrictEqual({
      inputTokens: 60,
      outputTokens: 6,
      cacheReadTokens: 11,
      cacheWriteTokens: 11,
    });
  });

  it('has no cache members when no attempt gave cache counts', () => {
    expect(
      turnUsage([
        attempt({ inputTokens: 10, outputTokens: 1 }),
        attempt({ inputTokens: 5, outputTokens: 5 }),
      ]),
    ).toStrictEqual({ inputTokens: 15, outputTokens: 6 });
  });
});
