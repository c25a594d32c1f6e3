// The event log keeps what it costs within bounds: bytes per session and in all, events per
// session, age, and one event's size (a long reply is kept as a preview, marked `truncated`).
import type { TurnEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createEventLog } from './event-log';

function decision(sessionId: string, at = 1): TurnEvent {
  return { sessionId, turnId: 't', type: 'decision', at, label: 'final', reason: 'overloaded' };
}

function turnEnd(sessionId: string, text: string): TurnEvent {
  return {
    sessionId,
    turnId: 't',
    type: 'turn-end',
    at: 1,
    outcome: { kind: 'reply', text, messageId: 'm', turnId: 't', attempts: [] },
  };
}

const sizeOf = (event: TurnEvent) => JSON.stringify(event).length;

describe('createEventLog bounds', () => {
  it("keeps a session's events within perSessionBytes, dropping its oldest first", () => {
    const one = sizeOf(decision('s1'));
    const log = createEventLog({ perSessionBytes: one * 3 });
    for (let index = 0; index < 10; index += 1) log.record({ ...decision('s1'), at: index });
    expect(log.recent('s1').map((event) => event.at)).toEqual([7, 8, 9]);
    expect(log.bytes()).toBe(one * 3);
  });

  it('keeps every session within maxBytes in all, forgetting the least recently active', () => {
    const one = sizeOf(decision('s0'));
    const log = createEventLog({ maxBytes: one * 4 });
    for (const id of ['s0', 's1', 's2']) log.record(decision(id));
    log.record(decision('s0')); // s0 is active again: s1 is now the least recent
    log.record(decision('s3'));
    expect(log.bytes()).toBeLessThanOrEqual(one * 4);
    expect(log.recent('s1')).toEqual([]);
    expect(log.recent('s0')).toHaveLength(2);
    expect(log.recent('s2')).toHaveLength(1);
    expect(log.recent('s3')).toHaveLength(1);
  });

  it('keeps 4 MiB in all by default, however many sessions write', () => {
    const log = createEventLog();
    const one = sizeOf(decision('s-00000'));
    const events = Math.ceil((5 * 1_048_576) / one);
    for (let index = 0; index < events; index += 1)
      log.record(decision(`s-${String(index % 5000).padStart(5, '0')}`));
    expect(log.bytes()).toBeLessThanOrEqual(4 * 1_048_576);
    // Whole sessions are forgotten: what is left is within one session of the bound.
    expect(log.bytes()).toBeGreaterThan(4 * 1_048_576 * 0.99);
  });

  it('shares the byte budget between sessions and compatible calls', () => {
    const one = sizeOf(decision('c1'));
    const log = createEventLog({ maxBytes: one * 2, isCall: (id) => id.startsWith('c') });
    log.record(decision('c1'));
    log.record(decision('s1'));
    log.record(decision('s2'));
    expect(log.calls.recent('c1')).toEqual([]);
    expect(log.recent('s1')).toHaveLength(1);
    expect(log.recent('s2')).toHaveLength(1);
  });

  it('drops events older than maxAgeMs and forgets a session idle that long', () => {
    let now = 0;
    const log = createEventLog({ maxAgeMs: 1000, now: () => now });
    log.record(decision('old'));
    log.record(decision('s1', 1));
    now = 600;
    log.record(decision('s1', 2));
    now = 1200;
    // Not read again: s1's first event is past its age, its second is not.
    expect(log.recent('s1').map((event) => event.at)).toEqual([2]);
    const before = log.bytes();
    log.record(decision('s2'));
    // The idle sessions' events are gone from memory, not only hidden.
    expect(log.recent('old')).toEqual([]);
    expect(log.bytes()).toBe(before - sizeOf(decision('old')) + sizeOf(decision('s2')));
  });

  it('keeps a reply over maxEventBytes as a marked preview, and hands followers the same', () => {
    const log = createEventLog({ maxEventBytes: 4096 });
    const followed: TurnEvent[] = [];
    log.follow('s1', (event) => followed.push(event));
    const reply = 'x'.repeat(1_000_000);
    log.record(turnEnd('s1', reply));
    const [kept] = log.recent('s1');
    expect(kept).toMatchObject({ type: 'turn-end', truncated: true });
    expect(sizeOf(kept as TurnEvent)).toBeLessThanOrEqual(4096);
    expect(kept?.type === 'turn-end' && kept.outcome.text.startsWith('xxxx')).toBe(true);
    expect(log.bytes()).toBeLessThanOrEqual(4096);
    expect(followed).toEqual([kept]);
    // Text deltas are followed as they come, never cut (each is one small piece).
    const delta: TurnEvent = {
      sessionId: 's1',
      turnId: 't',
      type: 'model-event',
      at: 2,
      attempt: 1,
      event: { type: 'text-delta', text: 'd'.repeat(10_000) },
    };
    log.record(delta);
    expect(followed[1]).toEqual(delta);
  });

  it('keeps at most perSession events per session', () => {
    const log = createEventLog({ perSession: 2 });
    for (let index = 0; index < 5; index += 1) log.record({ ...decision('s1'), at: index });
    expect(log.recent('s1').map((event) => event.at)).toEqual([3, 4]);
  });
});
