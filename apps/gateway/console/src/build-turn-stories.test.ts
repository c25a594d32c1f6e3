import type { ModelTarget, TurnEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { buildTurnStories } from './build-turn-stories';

const a: ModelTarget = { providerId: 'anthropic', profileId: 'a', model: 'claude' };
const b: ModelTarget = { ...a, profileId: 'b' };
const backup: ModelTarget = { providerId: 'openai', profileId: 'main', model: 'gpt' };

function turn(turnId: string) {
  const base = (at: number) => ({ sessionId: 's1', turnId, at });
  return { base };
}

describe('buildTurnStories', () => {
  it('an overload, a profile rotation, a fallback: each decision on the attempt it followed', () => {
    const { base } = turn('t1');
    const events: TurnEvent[] = [
      { ...base(1000), type: 'turn-start', messageId: 'm1' },
      { ...base(1010), type: 'attempt-start', attempt: 1, target: a, probe: false },
      {
        ...base(1100),
        type: 'attempt-error',
        attempt: 1,
        target: a,
        kind: 'overloaded',
        status: 529,
      },
      {
        ...base(1101),
        type: 'decision',
        label: 'rotate_profile',
        from: a,
        to: b,
        reason: 'overloaded',
      },
      { ...base(1110), type: 'attempt-start', attempt: 2, target: b, probe: false },
      {
        ...base(1200),
        type: 'attempt-error',
        attempt: 2,
        target: b,
        kind: 'overloaded',
        status: 529,
      },
      {
        ...base(1201),
        type: 'health',
        event: {
          type: 'breaker-change',
          providerId: 'anthropic',
          model: 'claude',
          from: 'closed',
          to: 'open',
          until: 11_201,
          reason: 'overloaded',
        },
      },
      {
        ...base(1202),
        type: 'decision',
        label: 'fallback_model',
        from: b,
        to: backup,
        reason: 'overloaded',
      },
      { ...base(1210), type: 'attempt-start', attempt: 3, target: backup, probe: false },
      { ...base(1400), type: 'model-event', attempt: 3, event: { type: 'text-delta', text: 'Hi' } },
      {
        ...base(1450),
        type: 'model-event',
        attempt: 3,
        event: { type: 'text-delta', text: ' there' },
      },
    ];
    const [running] = buildTurnStories(events);
    expect(running?.endedAt).toBeUndefined();
    expect(
      running?.attempts.map((x) => [x.attempt, x.target.profileId, x.outcome, x.decision?.label]),
    ).toEqual([
      [1, 'a', 'error', 'rotate_profile'],
      [2, 'b', 'error', 'fallback_model'],
      [3, 'main', 'running', undefined],
    ]);
    expect(running?.attempts[2]?.firstTokenMs).toBe(190);
    expect(running?.marks.map((mark) => mark.text)).toEqual([
      'breaker anthropic/claude: closed → open (overloaded)',
    ]);

    const [ended] = buildTurnStories([
      ...events,
      {
        ...base(1500),
        type: 'turn-end',
        outcome: {
          kind: 'reply',
          text: 'Hi there',
          messageId: 'm1',
          turnId: 't1',
          attempts: [
            {
              attempt: 1,
              target: a,
              startedAt: 1010,
              endedAt: 1100,
              requestSent: true,
              probe: false,
              outcome: 'error',
              errorKind: 'overloaded',
              decision: 'rotate_profile',
            },
            {
              attempt: 2,
              target: b,
              startedAt: 1110,
              endedAt: 1200,
              requestSent: true,
              probe: false,
              outcome: 'error',
              errorKind: 'overloaded',
              decision: 'fallback_model',
            },
            {
              attempt: 3,
              target: backup,
              startedAt: 1210,
              endedAt: 1490,
              requestSent: true,
              probe: false,
              outcome: 'ok',
              firstTokenMs: 188,
            },
          ],
        },
      },
    ]);
    expect(ended?.endedAt).toBe(1500);
    expect(ended?.attempts[2]).toMatchObject({ outcome: 'ok', endedAt: 1490, firstTokenMs: 188 });
    expect(ended?.attempts.map((x) => x.decision?.label)).toEqual([
      'rotate_profile',
      'fallback_model',
      undefined,
    ]);
  });

  it('a wait after a rate limit with retry-after; a skipped target known only from the records', () => {
    const { base } = turn('t2');
    const [story] = buildTurnStories([
      { ...base(0), type: 'turn-start', messageId: 'm2' },
      { ...base(5), type: 'attempt-start', attempt: 2, target: backup, probe: false },
      {
        ...base(50),
        type: 'attempt-error',
        attempt: 2,
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
        delayMs: 998,
      },
      { ...base(1050), type: 'attempt-start', attempt: 3, target: backup, probe: false },
      {
        ...base(1200),
        type: 'turn-end',
        outcome: {
          kind: 'reply',
          text: 'ok',
          messageId: 'm2',
          turnId: 't2',
          attempts: [
            {
              attempt: 1,
              target: a,
              startedAt: 2,
              endedAt: 2,
              requestSent: false,
              probe: false,
              outcome: 'skipped',
            },
            {
              attempt: 2,
              target: backup,
              startedAt: 5,
              endedAt: 50,
              requestSent: true,
              probe: false,
              outcome: 'error',
              errorKind: 'rate_limit',
              status: 429,
              retryAfterMs: 1000,
              decision: 'wait',
            },
            {
              attempt: 3,
              target: backup,
              startedAt: 1050,
              endedAt: 1190,
              requestSent: true,
              probe: false,
              outcome: 'ok',
            },
          ],
        },
      },
    ]);
    expect(story?.waits).toEqual([
      { at: 51, delayMs: 998, label: 'wait', reason: 'rate_limit', retryAfter: true },
    ]);
    expect(story?.attempts.map((x) => [x.attempt, x.outcome, x.requestSent])).toEqual([
      [1, 'skipped', false],
      [2, 'error', true],
      [3, 'ok', true],
    ]);
  });

  it('a decision that follows no failed attempt (a takeover) is a mark with its true label', () => {
    const { base } = turn('t3');
    const [story] = buildTurnStories([
      { ...base(0), type: 'turn-start', messageId: 'm3' },
      { ...base(1), type: 'attempt-start', attempt: 1, target: a, probe: false },
      { ...base(9), type: 'attempt-error', attempt: 1, target: a, kind: 'session_takeover' },
      { ...base(10), type: 'decision', label: 'resend', from: a, reason: 'session_takeover' },
      { ...base(11), type: 'decision', label: 'final', reason: 'request_ceiling' },
      {
        ...base(20),
        type: 'binding',
        event: {
          type: 'binding-invalidated',
          sessionId: 's1',
          cliSessionId: 'c1',
          reason: 'missing-transcript',
        },
      },
      {
        ...base(30),
        type: 'compaction',
        event: {
          type: 'compaction-start',
          sessionId: 's1',
          trigger: 'overflow',
          tokensBefore: 900,
          compactedMessages: 4,
          keptMessages: 2,
        },
      },
    ]);
    expect(story?.attempts[0]?.decision?.label).toBe('resend');
    expect(story?.marks.map((mark) => [mark.kind, mark.label])).toEqual([
      ['decision', 'final'],
      ['binding', undefined],
    ]);
    expect(story?.compactions).toEqual([{ startedAt: 30, trigger: 'overflow', tokensBefore: 900 }]);
  });

  it('keeps turns apart and in the order they started', () => {
    const events: TurnEvent[] = [
      { ...turn('t1').base(0), type: 'turn-start', messageId: 'm1' },
      { ...turn('t2').base(5), type: 'turn-start', messageId: 'm2' },
      { ...turn('t1').base(6), type: 'attempt-start', attempt: 1, target: a, probe: false },
    ];
    expect(buildTurnStories(events).map((story) => [story.turnId, story.attempts.length])).toEqual([
      ['t1', 1],
      ['t2', 0],
    ]);
  });
});
