// createTurnEmitter (turn-emitter.ts): an unsubscribed listener hears nothing more; stopping one
// watcher of a turn leaves the turn's other watchers in place, and stopping it again (after the
// turn's watchers were all gone and a new one came) leaves the new one in place.
import type { TurnEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createTurnEmitter } from '../src/turn-emitter';

const event = (turnId: string): TurnEvent =>
  ({ sessionId: 's1', turnId, at: 0, type: 'decision' }) as TurnEvent;

describe('createTurnEmitter', () => {
  it('an unsubscribed listener hears nothing more', () => {
    const emitter = createTurnEmitter([]);
    const heard: string[] = [];
    const stop = emitter.subscribe((e) => heard.push(e.turnId));
    emitter.emit(event('t1'));
    stop();
    emitter.emit(event('t2'));
    expect(heard).toEqual(['t1']);
  });

  it('stopping one watcher of a turn keeps the others', () => {
    const emitter = createTurnEmitter([]);
    const heard: string[] = [];
    const stopA = emitter.watch('t1', () => heard.push('a'));
    emitter.watch('t1', () => heard.push('b'));
    stopA();
    emitter.emit(event('t1'));
    expect(heard).toEqual(['b']);
  });

  it('stopping a watcher twice leaves a later watcher of the same turn in place', () => {
    const emitter = createTurnEmitter([]);
    const heard: string[] = [];
    const stopA = emitter.watch('t1', () => heard.push('a'));
    stopA();
    emitter.watch('t1', () => heard.push('b'));
    stopA();
    emitter.emit(event('t1'));
    expect(heard).toEqual(['b']);
  });
});
