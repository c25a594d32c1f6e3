// The call log lists only the calls the registry names, with what the console shows of each,
// and forgets the oldest beyond its bound; the event log keeps their events apart from sessions'.
import type { TurnEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createCallLog } from './call-log';
import { createCallRegistry } from './call-registry';
import { priceBookOf } from './cost-of';
import { createEventLog } from './event-log';

const target = { providerId: 'p', profileId: 'k', model: 'm' };
const usage = { inputTokens: 1_000_000, outputTokens: 0 };

function callEvents(id: string, turnId: string): TurnEvent[] {
  return [
    { sessionId: id, turnId, type: 'turn-start', at: 10, messageId: id },
    {
      sessionId: id,
      turnId,
      type: 'decision',
      at: 11,
      label: 'fallback_model',
      reason: 'overloaded',
    },
    {
      sessionId: id,
      turnId,
      type: 'turn-end',
      at: 12,
      outcome: {
        kind: 'reply',
        text: 'hi',
        messageId: id,
        turnId,
        model: 'p/m',
        usage,
        attempts: [
          { attempt: 1, target, outcome: 'error', errorKind: 'overloaded', requestSent: true },
          { attempt: 2, target, outcome: 'skipped', requestSent: false },
          { attempt: 3, target, outcome: 'ok', requestSent: true, usage },
        ],
      },
    },
  ] as TurnEvent[];
}

describe('createCallLog', () => {
  it('summarizes a registered call: wire, route, outcome, model, usage, cost, decisions', () => {
    const registry = createCallRegistry();
    const log = createCallLog({
      callOf: registry.get,
      prices: priceBookOf({ 'p/m': { prices: { input: 2, output: 4 } } }),
    });
    const forget = registry.begin('c1', { api: 'anthropic', route: 'fast' });
    for (const event of callEvents('c1', 't1')) log.observe(event);
    forget();
    for (const event of callEvents('openai-s', 't2')) log.observe(event);
    expect(log.list()).toEqual([
      {
        callId: 'c1',
        turnId: 't1',
        api: 'anthropic',
        route: 'fast',
        startedAt: 10,
        endedAt: 12,
        outcome: 'reply',
        model: 'p/m',
        usage,
        costUsd: 2,
        attempts: 3,
        requests: 2,
        decisions: ['fallback_model'],
      },
    ]);
    expect(log.get('openai-s')).toBeUndefined();
  });

  it('lists the newest first and forgets the oldest beyond its limit', () => {
    const registry = createCallRegistry();
    const log = createCallLog({ callOf: registry.get, limit: 2 });
    for (const id of ['a', 'b', 'c']) {
      const forget = registry.begin(id, { api: 'openai', route: 'default' });
      for (const event of callEvents(id, `t-${id}`)) log.observe(event);
      forget();
    }
    expect(log.list().map((call) => call.callId)).toEqual(['c', 'b']);
    expect(log.list(1).map((call) => call.callId)).toEqual(['c']);
  });
});

describe('createEventLog with calls', () => {
  it("keeps a call's events under calls, a session's under sessions, and streams both", () => {
    const registry = createCallRegistry();
    const events = createEventLog({ isCall: (id) => registry.get(id) !== undefined });
    const everything: string[] = [];
    const callFollowed: string[] = [];
    events.follow(undefined, (event) => everything.push(event.sessionId));
    events.calls.follow('c1', (event) => callFollowed.push(event.type));
    const forget = registry.begin('c1', { api: 'openai', route: 'default' });
    for (const event of callEvents('c1', 't1')) events.record(event);
    forget();
    for (const event of callEvents('s1', 't2')) events.record(event);
    expect(events.calls.recent('c1').map((event) => event.type)).toEqual([
      'turn-start',
      'decision',
      'turn-end',
    ]);
    expect(events.recent('c1')).toEqual([]);
    expect(events.recent('s1')).toHaveLength(3);
    expect(events.calls.recent('s1')).toEqual([]);
    expect(callFollowed).toEqual(['turn-start', 'decision', 'turn-end']);
    expect(everything).toEqual(['c1', 'c1', 'c1', 's1', 's1', 's1']);
  });

  it('bounds the calls apart from the sessions', () => {
    const registry = createCallRegistry();
    const events = createEventLog({ calls: 1, isCall: (id) => registry.get(id) !== undefined });
    for (const id of ['c1', 'c2']) {
      const forget = registry.begin(id, { api: 'openai', route: 'default' });
      for (const event of callEvents(id, id)) events.record(event);
      forget();
    }
    events.record(callEvents('s1', 't')[0] as TurnEvent);
    expect(events.calls.recent('c1')).toEqual([]);
    expect(events.calls.recent('c2')).toHaveLength(3);
    expect(events.recent('s1')).toHaveLength(1);
  });
});
