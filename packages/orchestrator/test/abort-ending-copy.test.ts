// abortEnding: a shutdown ends `aborted` with the restart notice, a caller's stop with the caller
// abort copy; the target is a member only when one is given.
import { userMessage } from '@keel/error-classification';
import type { ModelTarget } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { abortEnding } from '../src/abort-ending';
import { DEFAULT_TURN_COPY } from '../src/turn-copy';
import type { LiveTurn, TurnRuntime } from '../src/turn-runtime';

const runtime = { settings: { copy: DEFAULT_TURN_COPY } } as unknown as TurnRuntime;
const turnStopped = (stopReason: LiveTurn['stopReason']) => ({ stopReason }) as LiveTurn;
const target: ModelTarget = { providerId: 'anthropic', profileId: 'k1', model: 'primary' };

describe('abortEnding', () => {
  it('a shutdown: the restart notice', () => {
    expect(abortEnding(turnStopped('shutdown'), runtime)).toStrictEqual({
      kind: 'aborted',
      text: DEFAULT_TURN_COPY.restartNotice,
      errorKind: 'caller_abort',
    });
  });

  it('a caller stop: the caller abort copy, no target member without a target', () => {
    expect(abortEnding(turnStopped(undefined), runtime)).toStrictEqual({
      kind: 'aborted',
      text: userMessage({ kind: 'caller_abort' }),
      errorKind: 'caller_abort',
    });
    expect(userMessage({ kind: 'caller_abort' })).not.toBe(DEFAULT_TURN_COPY.restartNotice);
  });

  it('keeps the target it is given', () => {
    expect(abortEnding(turnStopped(undefined), runtime, target)).toStrictEqual({
      kind: 'aborted',
      text: userMessage({ kind: 'caller_abort' }),
      errorKind: 'caller_abort',
      target,
    });
  });
});
