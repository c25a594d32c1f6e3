import type { TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, userTexts } from './harness';

// Which messages join the wait for the next turn and are written with its message. A repeat of a
// stored message and a message whose caller gave up are left (each gets a turn of its own), and a
// wait opened while an earlier turn is ending stays the one later messages join (`steer`); with
// `followup` the joined messages are then answered by turns of their own, in order.

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const turnStarts = (h: Harness) => h.events.filter((event) => event.type === 'turn-start');

describe('steer: joining the next turn', () => {
  it('a repeat that joins a wait is left to a turn of its own: answered from the transcript, never written twice', async () => {
    harness = await createHarness({ overrides: { queueMode: 'steer' } });
    const h = harness;
    const first = await h.orchestrator.runTurn({
      sessionId: 's1',
      input: 'one',
      clientMessageId: 'c0',
    });
    // 'two' opens the wait; the repeat of 'one' joins it.
    const [two, repeat] = await Promise.all([
      h.orchestrator.runTurn({ sessionId: 's1', input: 'two', clientMessageId: 'c1' }),
      h.orchestrator.runTurn({ sessionId: 's1', input: 'one', clientMessageId: 'c0' }),
    ]);
    expect(two).toMatchObject({ kind: 'reply', clientMessageId: 'c1' });
    expect(two.steeredMessageIds).toBeUndefined();
    expect(repeat).toMatchObject({
      kind: 'reply',
      messageId: first.messageId,
      turnId: first.turnId,
      clientMessageId: 'c0',
    });
    expect(userTexts(await h.entries('s1'))).toEqual(['one', 'two']);
    expect(h.sent()).toHaveLength(2);
  });

  it('a message whose caller gave up before the turn took it is left: it ends aborted, unwritten', async () => {
    harness = await createHarness({ overrides: { queueMode: 'steer' } });
    const h = harness;
    const gaveUp = new AbortController();
    gaveUp.abort(new Error('the caller left'));
    // 'open' opens the wait; 'left' joins it with a signal already aborted.
    const [opened, left] = await Promise.all([
      h.orchestrator.runTurn({ sessionId: 's1', input: 'open' }),
      h.orchestrator.runTurn({ sessionId: 's1', input: 'left', signal: gaveUp.signal }),
    ]);
    expect(opened.kind).toBe('reply');
    expect(opened.steeredMessageIds).toBeUndefined();
    expect(left.kind).toBe('aborted');
    expect(left.turnId).not.toBe(opened.turnId);
    expect(userTexts(await h.entries('s1'))).toEqual(['open']);
    expect(h.sent()).toHaveLength(1);
  });

  it('a wait opened as the turn before ends is not dropped when that turn’s own wait closes', async () => {
    harness = await createHarness({ overrides: { queueMode: 'steer' } });
    const h = harness;
    const later: Promise<TurnOutcome>[] = [];
    // At the first turn's end (its outcome final, the turn still the session's running one) two
    // messages arrive: the first opens a new wait, the second joins it.
    const off = h.orchestrator.subscribe((event) => {
      if (event.type !== 'turn-end' || later.length > 0) return;
      for (const input of ['two', 'three'])
        later.push(h.orchestrator.runTurn({ sessionId: 's1', input }));
    });
    const first = await h.orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    off();
    // The first turn's wait has closed; the next turn has not taken its messages yet.
    later.push(h.orchestrator.runTurn({ sessionId: 's1', input: 'four' }));
    const [two, three, four] = await Promise.all(later);
    expect(first.kind).toBe('reply');
    expect([two, three, four].map((outcome) => outcome?.kind)).toEqual(['reply', 'reply', 'reply']);
    expect(new Set([two, three, four].map((outcome) => outcome?.turnId)).size).toBe(1);
    expect(two!.turnId).not.toBe(first.turnId);
    expect(turnStarts(h)).toHaveLength(2);
    expect(h.sent()).toHaveLength(2);
  });
  it('followup: concurrent messages are written with the first turn’s, then each answered by a turn of its own, in order', async () => {
    harness = await createHarness({ overrides: { queueMode: 'followup' } });
    const h = harness;
    const seen = new Map<string, Set<string>>();
    const outcomes = await Promise.all(
      ['one', 'two', 'three'].map((input) =>
        h.orchestrator.runTurn({
          sessionId: 's1',
          input,
          onEvent: (event) => {
            const turns = seen.get(input) ?? new Set<string>();
            turns.add(event.turnId);
            seen.set(input, turns);
          },
        }),
      ),
    );
    expect(new Set(outcomes.map((outcome) => outcome.turnId)).size).toBe(3);
    // One write for the three messages, then a turn each.
    const roles = (await h.entries('s1')).flatMap((entry) =>
      entry.type === 'message' ? [entry.role] : [],
    );
    expect(roles).toEqual(['user', 'user', 'user', 'assistant', 'assistant', 'assistant']);
    // Each turn's model call sees the exchanges before it, and its own message last.
    const sentUserTexts = h.mock.requests.map((request) =>
      (request.messages as Array<{ role: string; content: unknown }>)
        .filter((message) => message.role === 'user')
        .map((message) => JSON.stringify(message.content)),
    );
    expect(sentUserTexts.map((texts) => texts.length)).toEqual([1, 2, 3]);
    expect(
      sentUserTexts[2]?.map((text) => ['one', 'two', 'three'].find((word) => text.includes(word))),
    ).toEqual(['one', 'two', 'three']);
    // Each caller hears its own turn only.
    expect(['one', 'two', 'three'].map((input) => [...(seen.get(input) ?? [])])).toEqual(
      outcomes.map((outcome) => [outcome.turnId]),
    );
  });
});
