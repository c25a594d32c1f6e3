// "Durable before acknowledged" (held-turn-events.ts): a turn's events wait until its message's
// flush is done, then go out in order; other turns' events never wait; after a failed flush (even
// one that fails with no error) only the turn's start and end go out, and `settled` says why.
import type { TurnEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { holdTurnEvents } from '../src/held-turn-events';
import { createTurnEmitter } from '../src/turn-emitter';
import type { TurnRuntime } from '../src/turn-runtime';

const event = (turnId: string, type: 'turn-start' | 'turn-end' | 'decision'): TurnEvent =>
  ({ sessionId: 's1', turnId, at: 0, type }) as TurnEvent;

function setup() {
  const emitter = createTurnEmitter([]);
  const seen: string[] = [];
  emitter.subscribe((e) => seen.push(`${e.turnId}:${e.type}`));
  const runtime = { emitter, stopping: false } as unknown as TurnRuntime;
  return { runtime, seen, held: holdTurnEvents(runtime, 't1') };
}

describe('holdTurnEvents', () => {
  it('holds the turn’s events until the flush is done, in order; others’ go at once', async () => {
    const { seen, held } = setup();
    let flushed: () => void = () => undefined;
    const durable = new Promise<void>((resolve) => {
      flushed = resolve;
    });
    held.runtime.emitter.emit(event('t1', 'turn-start'));
    held.runtime.emitter.emit(event('t2', 'decision'));
    held.runtime.emitter.emit(event('t1', 'decision'));
    const opened = held.open(durable);
    expect(seen).toEqual(['t2:decision']);
    flushed();
    await opened;
    expect(seen).toEqual(['t2:decision', 't1:turn-start', 't1:decision']);
    held.runtime.emitter.emit(event('t1', 'decision'));
    expect(seen).toHaveLength(4);
    expect(await held.settled()).toBeUndefined();
  });

  it('after a failed flush, only the turn’s start and end go out, held or later', async () => {
    const { seen, held } = setup();
    held.runtime.emitter.emit(event('t1', 'turn-start'));
    held.runtime.emitter.emit(event('t1', 'decision'));
    const failure = new Error('disk full');
    await held.open(Promise.reject(failure));
    held.runtime.emitter.emit(event('t1', 'decision'));
    held.runtime.emitter.emit(event('t1', 'turn-end'));
    expect(seen).toEqual(['t1:turn-start', 't1:turn-end']);
    expect(await held.settled()).toBe(failure);
  });

  it('a flush that fails with no error still counts as failed', async () => {
    const { seen, held } = setup();
    held.runtime.emitter.emit(event('t1', 'decision'));
    await held.open(Promise.reject(undefined));
    held.runtime.emitter.emit(event('t1', 'decision'));
    expect(seen).toEqual([]);
    expect(await held.settled()).toMatchObject({ message: 'the flush failed' });
  });

  it('only the first open counts; settled with no open lets the events go at once', async () => {
    const first = setup();
    await first.held.open();
    const late = Promise.reject(new Error('late'));
    late.catch(() => undefined);
    await first.held.open(late);
    first.held.runtime.emitter.emit(event('t1', 'decision'));
    expect(first.seen).toEqual(['t1:decision']);
    expect(await first.held.settled()).toBeUndefined();

    const second = setup();
    second.held.runtime.emitter.emit(event('t1', 'decision'));
    expect(await second.held.settled()).toBeUndefined();
    expect(second.seen).toEqual(['t1:decision']);
  });

  it('the turn’s runtime reads through to the shared one, but for its emitter (which shares the listeners)', () => {
    const { runtime, held } = setup();
    expect(held.runtime.emitter).not.toBe(runtime.emitter);
    runtime.stopping = true;
    expect(held.runtime.stopping).toBe(true);
    const watched: string[] = [];
    const unwatch = held.runtime.emitter.watch('t2', (e) => watched.push(e.type));
    held.runtime.emitter.subscribe(() => {
      throw new Error('an observer that throws');
    });
    runtime.emitter.emit(event('t2', 'decision'));
    unwatch();
    runtime.emitter.emit(event('t2', 'turn-end'));
    expect(watched).toEqual(['decision']);
    expect(held.runtime.emitter.observerErrors).toBe(2);
  });
});
