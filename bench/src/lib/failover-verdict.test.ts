// The failover scorecard's judgement, checked on made-up observations: what passes, what is
// partial, safe or a fail, and the decision-truthfulness check it relies on for S16.
import { describe, expect, it } from 'vitest';
import { decisionsTruthful, requests } from './failover-checks';
import type { Observation } from './failover-scenario';
import { verdictOf } from './failover-verdict';
import type { RecordedAttempt } from './gateway-turn';

const REPLY = 'the whole answer';

function observed(overrides: Partial<Observation> = {}): Observation {
  return {
    turn: { answer: { outcome: 'reply', text: REPLY }, shown: REPLY, discards: 0, ms: 10 },
    limitMs: 1_000,
    primary: [],
    fallback: [],
    attempts: [],
    reply: REPLY,
    ...overrides,
  };
}

const entry = {
  model: 's04-primary',
  receivedAt: 0,
  prefill: false,
  promptChars: 10,
  behavior: 'ok',
};
const attempt = (
  model: string,
  outcome: RecordedAttempt['outcome'],
  decision?: string,
  profileId = 'key1',
): RecordedAttempt => ({
  attempt: 0,
  target: { providerId: model.split('-')[1] ?? 'p', profileId, model },
  outcome,
  requestSent: outcome !== 'skipped',
  ...(decision === undefined ? {} : { decision }),
});

describe('verdictOf', () => {
  it('passes the complete answer with every check clean; an advisory miss makes it partial', () => {
    expect(verdictOf('answer', observed(), []).verdict).toBe('pass');
    const advisory = { ok: false, required: false, detail: 'the silent primary was retried' };
    const partial = verdictOf('answer', observed(), [advisory]);
    expect(partial).toMatchObject({ verdict: 'partial' });
    expect(partial.why).toContain('the silent primary was retried');
  });

  it('fails a hang, a truncated success, a stream showing other text, and a required miss', () => {
    expect(verdictOf('answer', observed({ turn: undefined }), []).verdict).toBe('fail');
    const truncated = observed({
      turn: {
        answer: { outcome: 'reply', text: 'the whole' },
        shown: 'the whole',
        discards: 0,
        ms: 1,
      },
    });
    expect(verdictOf('answer', truncated, []).why).toContain(
      'truncated answer presented as success',
    );
    const misshown = observed({
      turn: { answer: { outcome: 'reply', text: REPLY }, shown: `cut${REPLY}`, discards: 0, ms: 1 },
    });
    expect(verdictOf('answer', misshown, []).verdict).toBe('fail');
    const hammering = requests(observed({ primary: [entry, entry, entry] }), 'primary', [1, 2], {
      required: true,
      why: 'hammering',
    });
    expect(verdictOf('answer', observed(), [hammering])).toMatchObject({ verdict: 'fail' });
  });

  it('a clear error is safe where an answer was ideal, and the pass where an error was', () => {
    const error = observed({
      turn: {
        answer: { outcome: 'error', text: 'sorry', errorKind: 'content_policy' },
        shown: '',
        discards: 0,
        ms: 1,
      },
    });
    expect(verdictOf('answer', error, []).verdict).toBe('safe');
    expect(verdictOf('error', error, []).verdict).toBe('pass');
    expect(verdictOf('error', observed(), []).verdict).toBe('partial');
    const vague = observed({
      turn: { answer: { outcome: 'error', text: 'sorry' }, shown: '', discards: 0, ms: 1 },
    });
    expect(verdictOf('answer', vague, []).verdict).toBe('fail');
  });
});

describe('decisionsTruthful', () => {
  it('holds when each decision fits the next target', () => {
    const attempts = [
      attempt('s16-primary', 'error', 'retry_same'),
      attempt('s16-primary', 'error', 'rotate_profile'),
      attempt('s16-primary', 'skipped', 'fallback_model', 'key2'),
      attempt('s16-fallback', 'ok'),
    ];
    expect(decisionsTruthful(attempts).ok).toBe(true);
  });

  it('fails a skipped attempt without a decision and a fallback_model to the same model', () => {
    const silent = decisionsTruthful([
      attempt('s16-primary', 'skipped'),
      attempt('s16-fallback', 'ok'),
    ]);
    expect(silent).toMatchObject({ ok: false, required: true });
    expect(silent.detail).toContain('has no decision');
    const lying = decisionsTruthful([
      attempt('s16-primary', 'error', 'fallback_model'),
      attempt('s16-primary', 'ok'),
    ]);
    expect(lying.detail).toContain('fallback_model, same model next');
  });
});
