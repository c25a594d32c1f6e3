// The time limits of one model call (call-once.ts `callTimeoutsOf`): the turn-wide
// `callTimeouts`, with the target model's own `firstTokenTimeoutMs` and `stallTimeoutMs` in their
// place when its `models.settings` entry sets them — and only those it sets: a model that sets one
// keeps the turn-wide value of the other (never `undefined`, which would drop the limit).
import { describe, expect, it } from 'vitest';
import { callTimeoutsOf } from '../src/call-once';
import type { ModelSettings } from '../src/index';
import { resolveSettings } from '../src/resolve-settings';

const settingsWith = (own: ModelSettings) =>
  resolveSettings({
    storage: {} as never,
    fences: (() => undefined) as never,
    router: { connect: () => undefined as never },
    providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
    models: { primary: 'anthropic/primary', settings: { 'anthropic/primary': own } },
    callTimeouts: { timeoutMs: 90_000, firstTokenTimeoutMs: 20_000, stallTimeoutMs: 15_000 },
  });
const primary = { providerId: 'anthropic', profileId: 'k1', model: 'primary' };
const other = { providerId: 'anthropic', profileId: 'k1', model: 'other' };
const turnWide = { timeoutMs: 90_000, firstTokenTimeoutMs: 20_000, stallTimeoutMs: 15_000 };

describe('callTimeoutsOf', () => {
  it('a model with no settings of its own gets the turn-wide limits', () => {
    expect(callTimeoutsOf(settingsWith({ firstTokenTimeoutMs: 1_000 }), other)).toStrictEqual(
      turnWide,
    );
  });

  it('a model that sets only its first-token limit keeps the turn-wide stall limit', () => {
    expect(callTimeoutsOf(settingsWith({ firstTokenTimeoutMs: 1_000 }), primary)).toStrictEqual({
      ...turnWide,
      firstTokenTimeoutMs: 1_000,
    });
  });

  it('a model that sets only its stall limit keeps the turn-wide first-token limit', () => {
    expect(callTimeoutsOf(settingsWith({ stallTimeoutMs: 2_000 }), primary)).toStrictEqual({
      ...turnWide,
      stallTimeoutMs: 2_000,
    });
  });
});
