import type { TurnEvent } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createGate, startTwoGateways } from './two-gateways';

// A message queued at gateway b and answered by gateway a's turn: b's own subscribers and the
// caller's onEvent still see one turn start and one turn end for it, naming the message.

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('a message answered by another gateway’s turn', () => {
  it('its gateway emits one turn-start naming the message and one turn-end with that outcome', async () => {
    const gate = createGate();
    const { mock, a, b } = await startTwoGateways(cleanup, () => gate.wait());

    const first = a.orchestrator.runTurn({
      sessionId: 's1',
      input: 'first',
      clientMessageId: 'c1',
    });
    await gate.reached;
    const seen: TurnEvent[] = [];
    const second = b.orchestrator.runTurn({
      sessionId: 's1',
      input: 'second',
      clientMessageId: 'c2',
      onEvent: (event) => seen.push(event),
    });
    await b.queued;
    gate.open();
    const [, two] = await Promise.all([first, second]);
    // Answered by a: the model was asked through a only.
    expect(mock.requests.map((request) => request.apiKey)).toEqual(['key-a', 'key-a']);
    expect(two).toMatchObject({ kind: 'reply', clientMessageId: 'c2' });

    const atB = b.events.filter(
      (event) => event.type === 'turn-start' || event.type === 'turn-end',
    );
    expect(atB).toHaveLength(2);
    const [start, end] = atB;
    expect(start).toMatchObject({
      type: 'turn-start',
      sessionId: 's1',
      messageId: two.messageId,
      clientMessageId: 'c2',
    });
    expect(end).toMatchObject({ type: 'turn-end', sessionId: 's1', turnId: start!.turnId });
    expect(end?.type === 'turn-end' && end.outcome).toEqual(two);
    expect(start!.at).toBe(end!.at);
    // The caller's onEvent got the same two events.
    expect(seen).toEqual(atB);
  });

  it('a message without a clientMessageId: its turn-start has no such member, not an undefined one', async () => {
    const gate = createGate();
    const { mock, a, b } = await startTwoGateways(cleanup, () => gate.wait());

    const first = a.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    await gate.reached;
    const second = b.orchestrator.runTurn({ sessionId: 's1', input: 'second' });
    await b.queued;
    gate.open();
    const [, two] = await Promise.all([first, second]);
    expect(mock.requests.map((request) => request.apiKey)).toEqual(['key-a', 'key-a']);
    expect(two.kind).toBe('reply');
    const start = b.events.find((event) => event.type === 'turn-start');
    expect(start).toMatchObject({ type: 'turn-start', sessionId: 's1', messageId: two.messageId });
    expect(start !== undefined && 'clientMessageId' in start).toBe(false);
  });
});
