// createLiveTurn (create-live-turn.ts): the turn follows its caller's signal and holds no listener
// on it once it fired or once disposed; its clientMessageId comes from the stored message or the
// new input.
import { getEventListeners } from 'node:events';
import type { MessageEntry } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createLiveTurn } from '../src/create-live-turn';
import type { TurnRuntime } from '../src/turn-runtime';

function runtime(): TurnRuntime {
  let next = 0;
  return {
    createId: () => `id${++next}`,
    fences: () => ({}),
  } as unknown as TurnRuntime;
}

const stored = (clientMessageId?: string): MessageEntry =>
  ({
    type: 'message',
    id: 'm1',
    messageId: 'm1',
    role: 'user',
    content: [],
    ...(clientMessageId === undefined ? {} : { clientMessageId }),
  }) as unknown as MessageEntry;

describe('createLiveTurn', () => {
  it('aborts with the caller’s signal and lets go of it when it fires', () => {
    const caller = new AbortController();
    const turn = createLiveTurn(runtime(), 's1', { type: 'new', content: [] }, caller.signal);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    const reason = new Error('gone');
    caller.abort(reason);
    expect(turn.controller.signal.reason).toBe(reason);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('after dispose, the caller’s signal no longer reaches the turn and prepared settles', async () => {
    const caller = new AbortController();
    const turn = createLiveTurn(runtime(), 's1', { type: 'new', content: [] }, caller.signal);
    turn.dispose();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    caller.abort(new Error('gone'));
    expect(turn.controller.signal.aborted).toBe(false);
    await expect(turn.prepared).resolves.toBeUndefined();
  });

  it('takes the clientMessageId of a stored message', () => {
    const turn = createLiveTurn(
      runtime(),
      's1',
      { type: 'existing', message: stored('c1') },
      undefined,
    );
    expect(turn.clientMessageId).toBe('c1');
    expect(turn.messageId).toBe('m1');
  });

  it('takes the clientMessageId of a new message', () => {
    const turn = createLiveTurn(
      runtime(),
      's1',
      { type: 'new', content: [], clientMessageId: 'c2' },
      undefined,
    );
    expect(turn.clientMessageId).toBe('c2');
  });
});
