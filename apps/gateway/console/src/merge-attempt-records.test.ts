import type { ModelTarget } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { buildTurnStories } from './build-turn-stories';

const a: ModelTarget = { providerId: 'anthropic', profileId: 'a', model: 'claude' };
const backup: ModelTarget = { providerId: 'openai', profileId: 'main', model: 'gpt' };

function turn(turnId: string) {
  const base = (at: number) => ({ sessionId: 's1', turnId, at });
  return { base };
}

describe('mergeRecords, through buildTurnStories', () => {
  it('a skipped attempt takes the decision that named it, with its reason, target and cooldown', () => {
    const { base } = turn('t5');
    const [story] = buildTurnStories([
      { ...base(0), type: 'turn-start', messageId: 'm5' },
      // The orchestrator skips `a` (breaker open) and explains the move in the same ms.
      {
        ...base(3),
        type: 'decision',
        label: 'fallback_model',
        from: a,
        to: backup,
        reason: 'overloaded',
      },
      { ...base(4), type: 'attempt-start', attempt: 2, target: backup, probe: false },
      {
        ...base(90),
        type: 'turn-end',
        outcome: {
          kind: 'reply',
          text: 'ok',
          messageId: 'm5',
          turnId: 't5',
          usage: { inputTokens: 40, outputTokens: 7 },
          attempts: [
            {
              attempt: 1,
              target: a,
              startedAt: 3,
              endedAt: 3,
              requestSent: false,
              probe: false,
              outcome: 'skipped',
              retryAfterMs: 8000,
              decision: 'fallback_model',
            },
            {
              attempt: 2,
              target: backup,
              startedAt: 4,
              endedAt: 80,
              requestSent: true,
              probe: false,
              outcome: 'ok',
              usage: { inputTokens: 40, outputTokens: 7 },
            },
          ],
        },
      },
    ]);
    expect(story?.attempts[0]).toMatchObject({
      outcome: 'skipped',
      coolingMs: 8000,
      decision: { label: 'fallback_model', reason: 'overloaded', to: backup },
    });
    expect(story?.attempts[1]?.usage).toEqual({ inputTokens: 40, outputTokens: 7 });
    // Told once, on its attempt: no loose decision mark beside it.
    expect(story?.marks).toEqual([]);
  });

  it("a skipped attempt's decision known only from the record shows without a made-up reason", () => {
    const { base } = turn('t6');
    const [story] = buildTurnStories([
      { ...base(0), type: 'turn-start', messageId: 'm6' },
      {
        ...base(9),
        type: 'turn-end',
        outcome: {
          kind: 'error',
          text: 'busy',
          messageId: 'm6',
          turnId: 't6',
          errorKind: 'overloaded',
          retryAfterMs: 4000,
          attempts: [
            {
              attempt: 1,
              target: a,
              startedAt: 2,
              endedAt: 2,
              requestSent: false,
              probe: false,
              outcome: 'skipped',
              retryAfterMs: 4000,
              decision: 'final',
            },
          ],
        },
      },
    ]);
    expect(story?.attempts[0]?.decision).toEqual({ label: 'final' });
  });
});
