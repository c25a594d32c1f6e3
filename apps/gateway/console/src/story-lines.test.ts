import type { ModelTarget, TurnEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { storyLines } from './story-lines';

const primary: ModelTarget = { providerId: 'anthropic', profileId: 'b', model: 'claude' };
const backup: ModelTarget = { providerId: 'openai', profileId: 'main', model: 'gpt' };
const base = (at: number) => ({ sessionId: 's1', turnId: 't1', at });

describe('storyLines', () => {
  it('tells the events in the order they happened, records placed at their time', () => {
    const lines = storyLines([
      { ...base(0), type: 'turn-start', messageId: 'm1' },
      { ...base(10), type: 'attempt-start', attempt: 2, target: primary, probe: false },
      {
        ...base(40),
        type: 'attempt-error',
        attempt: 2,
        target: primary,
        kind: 'overloaded',
        status: 529,
      },
      {
        ...base(41),
        type: 'health',
        event: {
          type: 'breaker-change',
          providerId: 'anthropic',
          model: 'claude',
          from: 'closed',
          to: 'open',
          until: 10_041,
          reason: 'overloaded',
        },
      },
      {
        ...base(41),
        type: 'decision',
        label: 'fallback_model',
        from: primary,
        to: backup,
        reason: 'overloaded',
      },
      { ...base(42), type: 'attempt-start', attempt: 3, target: backup, probe: false },
      {
        ...base(50),
        type: 'attempt-error',
        attempt: 3,
        target: backup,
        kind: 'rate_limit',
        status: 429,
        retryAfterMs: 1000,
      },
      {
        ...base(51),
        type: 'decision',
        label: 'wait',
        from: backup,
        reason: 'rate_limit',
        delayMs: 1000,
      },
      { ...base(1060), type: 'attempt-start', attempt: 4, target: backup, probe: true },
      { ...base(1100), type: 'model-event', attempt: 4, event: { type: 'text-delta', text: 'Hi' } },
      { ...base(1110), type: 'model-event', attempt: 4, event: { type: 'text-delta', text: '!' } },
      {
        ...base(1200),
        type: 'turn-end',
        outcome: {
          kind: 'reply',
          text: 'Hi!',
          messageId: 'm1',
          turnId: 't1',
          model: 'openai/gpt',
          attempts: [
            {
              attempt: 1,
              target: { ...primary, profileId: 'a' },
              startedAt: 5,
              endedAt: 5,
              requestSent: false,
              probe: false,
              outcome: 'skipped',
            },
            {
              attempt: 2,
              target: primary,
              startedAt: 10,
              endedAt: 40,
              requestSent: true,
              probe: false,
              outcome: 'error',
              errorKind: 'overloaded',
              decision: 'fallback_model',
            },
            {
              attempt: 3,
              target: backup,
              startedAt: 42,
              endedAt: 50,
              requestSent: true,
              probe: false,
              outcome: 'error',
              errorKind: 'rate_limit',
              decision: 'wait',
            },
            {
              attempt: 4,
              target: backup,
              startedAt: 1060,
              endedAt: 1190,
              requestSent: true,
              probe: true,
              outcome: 'ok',
              firstTokenMs: 40,
            },
          ],
        },
      },
    ] satisfies TurnEvent[]);
    expect(lines.map((line) => [line.at, line.text])).toEqual([
      [0, 'turn started'],
      [
        5,
        'attempt #1: anthropic/a · claude skipped, no request sent (breaker open or profile cooling)',
      ],
      [10, 'attempt #2 → anthropic/b · claude'],
      [40, 'attempt #2 failed: overloaded (529)'],
      [41, 'breaker anthropic/claude: closed → open (overloaded) for 10.0 s'],
      [41, 'decision fallback_model (because overloaded) → openai/main · gpt'],
      [42, 'attempt #3 → openai/main · gpt'],
      [50, 'attempt #3 failed: rate_limit (429), retry-after 1.00 s'],
      [51, 'decision wait (because rate_limit), waiting 1.00 s (retry-after)'],
      [1060, 'attempt #4 → openai/main · gpt (the half-open probe)'],
      [1100, 'attempt #4: first output'],
      [1190, 'attempt #4 answered'],
      [1200, 'turn ended: reply · openai/gpt'],
    ]);
    expect(
      lines.filter((line) => line.decision !== undefined).map((line) => line.decision),
    ).toEqual(['fallback_model', 'wait']);
  });

  it('takes the first-output time from the record when the deltas were not kept', () => {
    const lines = storyLines([
      { ...base(0), type: 'turn-start', messageId: 'm1' },
      { ...base(1), type: 'attempt-start', attempt: 1, target: backup, probe: false },
      {
        ...base(90),
        type: 'turn-end',
        outcome: {
          kind: 'reply',
          text: 'Hi',
          messageId: 'm1',
          turnId: 't1',
          attempts: [
            {
              attempt: 1,
              target: backup,
              startedAt: 1,
              endedAt: 80,
              requestSent: true,
              probe: false,
              outcome: 'ok',
              firstTokenMs: 30,
            },
          ],
        },
      },
    ]);
    expect(lines.map((line) => [line.at, line.kind])).toEqual([
      [0, 'turn'],
      [1, 'attempt'],
      [31, 'token'],
      [80, 'ok'],
      [90, 'end'],
    ]);
  });

  it('tells a skip before the decision it caused, with its cooldown and its decision', () => {
    const lines = storyLines([
      { ...base(0), type: 'turn-start', messageId: 'm1' },
      // Skipped and explained in the same ms, as the orchestrator does.
      {
        ...base(7),
        type: 'decision',
        label: 'fallback_model',
        from: primary,
        to: backup,
        reason: 'overloaded',
      },
      { ...base(8), type: 'attempt-start', attempt: 2, target: backup, probe: false },
      {
        ...base(90),
        type: 'turn-end',
        outcome: {
          kind: 'reply',
          text: 'Hi',
          messageId: 'm1',
          turnId: 't1',
          model: 'openai/gpt',
          attempts: [
            {
              attempt: 1,
              target: primary,
              startedAt: 7,
              endedAt: 7,
              requestSent: false,
              probe: false,
              outcome: 'skipped',
              retryAfterMs: 12_000,
              decision: 'fallback_model',
            },
            {
              attempt: 2,
              target: backup,
              startedAt: 8,
              endedAt: 80,
              requestSent: true,
              probe: false,
              outcome: 'ok',
            },
          ],
        },
      },
    ]);
    expect(lines.map((line) => [line.at, line.text])).toEqual([
      [0, 'turn started'],
      [
        7,
        'attempt #1: anthropic/b · claude skipped, no request sent (breaker open or profile cooling for 12.0 s) → fallback_model',
      ],
      [7, 'decision fallback_model (because overloaded) → openai/main · gpt'],
      [8, 'attempt #2 → openai/main · gpt'],
      [80, 'attempt #2 answered'],
      [90, 'turn ended: reply · openai/gpt'],
    ]);
  });

  it('keeps time order when an event arrives stamped earlier than the one before it', () => {
    const lines = storyLines([
      { ...base(0), type: 'turn-start', messageId: 'm1' },
      { ...base(20), type: 'attempt-start', attempt: 1, target: backup, probe: false },
      {
        ...base(15),
        type: 'health',
        event: {
          type: 'cooldown-start',
          providerId: 'anthropic',
          profileId: 'b',
          kind: 'rate_limit',
          until: 1015,
        },
      },
    ]);
    expect(lines.map((line) => line.at)).toEqual([0, 15, 20]);
  });

  it('ends a turn that found every candidate cooling: says so, names no model it never tried', () => {
    const skipped = (attempt: number, target: ModelTarget) => ({
      attempt,
      target,
      startedAt: 3,
      endedAt: 3,
      requestSent: false,
      probe: false,
      outcome: 'skipped' as const,
      retryAfterMs: 29_000,
    });
    const lines = storyLines([
      { ...base(0), type: 'turn-start', messageId: 'm1' },
      { ...base(3), type: 'decision', label: 'final', reason: 'rate_limit' },
      {
        ...base(9),
        type: 'turn-end',
        outcome: {
          kind: 'error',
          text: 'The model provider is limiting requests right now.',
          messageId: 'm1',
          turnId: 't1',
          errorKind: 'rate_limit',
          retryAfterMs: 29_000,
          // An older orchestrator named the last candidate even though it was only skipped.
          model: 'openai/gpt',
          attempts: [skipped(1, primary), { ...skipped(2, backup), decision: 'final' }],
        },
      },
    ]);
    expect(lines.at(-1)?.text).toBe(
      'turn ended: error (rate_limit) · Every candidate was cooling (breaker open or profile cooling): nothing to try for 29.0 s (retryAfterMs 29000).',
    );
    expect(lines.map((line) => line.kind)).toEqual([
      'turn',
      'skipped',
      'skipped',
      'decision',
      'end',
    ]);
  });
});
