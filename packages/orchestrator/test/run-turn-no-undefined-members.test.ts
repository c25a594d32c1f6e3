// A turn's outcome and its turn-start / turn-end events carry only the members that have a value:
// a caller (in this process) sees `'clientMessageId' in outcome`, and an absent clientMessageId,
// steeredMessageIds, usage or staleReply must not show up as a member set to undefined (or as an
// empty list). run-turn.ts spreads each one only when it has a value; hand-made mutants that spread
// it always (`false ? {} : { x }`) fail here, as the comment over each test says.
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TranscriptEntry, TurnEvent, TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const lookup = { name: 'lookup', inputSchema: { type: 'object' } };

/** The members of an outcome or event whose value is undefined (none, in a correct one). */
const undefinedMembers = (value: object) =>
  Object.entries(value).flatMap(([key, member]) => (member === undefined ? [key] : []));

const ofType = <T extends TurnEvent['type']>(h: Harness, type: T) =>
  h.events.filter((event): event is Extract<TurnEvent, { type: T }> => event.type === type);

/** Resolves with the first event (recorded or to come) that `predicate` accepts. */
function nextEvent(h: Harness, predicate: (event: TurnEvent) => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (h.events.some(predicate)) return resolve();
    const off = h.orchestrator.subscribe((event) => {
      if (!predicate(event)) return;
      off();
      resolve();
    });
  });
}

describe('outcomes and turn events carry no member set to undefined', () => {
  // Kills line 64 (`turn-start` with `clientMessageId: undefined`), 323 (the outcome's
  // clientMessageId) and 328 (`steeredMessageIds: []` on a turn that folded nothing in).
  it('a plain reply with no clientMessageId: no clientMessageId, no steeredMessageIds', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: 'hi' }, match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    expect(Object.keys(outcome).sort()).toEqual(
      ['attempts', 'kind', 'messageId', 'model', 'provider', 'text', 'turnId', 'usage'].sort(),
    );
    const [start] = ofType(harness, 'turn-start');
    expect(start).toStrictEqual({
      sessionId: 's1',
      turnId: outcome.turnId,
      at: expect.any(Number),
      type: 'turn-start',
      messageId: outcome.messageId,
    });
    const [end] = ofType(harness, 'turn-end');
    expect(end?.outcome).toBe(outcome);
  });

  // Kills line 329 (`usage: undefined` when no attempt reported any).
  it('an error no attempt reported usage for: no usage member', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'http-error', status: 400 }, match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'invalid_request' });
    expect(undefinedMembers(outcome)).toEqual([]);
    expect(outcome).not.toHaveProperty('usage');
  });

  // Kills line 293 (`staleReply: undefined` on a takeover found outside a model call's decisions).
  it('a takeover found at the tool result’s write: resend with no staleReply member', async () => {
    let sessionsDir = '';
    harness = await createHarness({
      tools: {
        definitions: [lookup],
        // Another writer appends to the file behind the lease while the tool runs (a crashed
        // gateway's late write): the turn's next write finds the transcript changed.
        async run() {
          const foreign: TranscriptEntry = {
            type: 'message',
            id: 'foreign-1',
            messageId: 'foreign-1',
            timestamp: new Date().toISOString(),
            role: 'assistant',
            content: [{ type: 'text', text: 'written by another gateway' }],
          };
          await appendFile(join(sessionsDir, 's1.jsonl'), `${JSON.stringify(foreign)}\n`);
          return { content: 'found' };
        },
      },
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ id: 't1', name: 'lookup', input: {} }] },
          match: primary,
        },
      ],
    });
    sessionsDir = harness.sessionsDir;
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'look' });
    expect(outcome).toMatchObject({ kind: 'resend', errorKind: 'session_takeover' });
    expect(undefinedMembers(outcome)).toEqual([]);
    expect(outcome).not.toHaveProperty('staleReply');
  });

  // Kills lines 346–350 (`model`, `provider`, `errorKind`, `retryAfterMs`, `usage` spread as
  // undefined into a stored outcome whose turn end has none of them).
  it('a repeat of a message whose stored end has only its kind and text gets exactly those', async () => {
    harness = await createHarness();
    const stamp = new Date(Date.UTC(2026, 0, 1)).toISOString();
    await harness.storage.append('s1', [
      {
        type: 'message',
        id: 'm1',
        messageId: 'm1',
        timestamp: stamp,
        role: 'user',
        content: [{ type: 'text', text: 'hello' }],
        clientMessageId: 'c-1',
      },
      { type: 'turn', id: 'e1', timestamp: stamp, phase: 'start', turnId: 't1', messageId: 'm1' },
      {
        type: 'turn',
        id: 'e2',
        timestamp: stamp,
        phase: 'end',
        turnId: 't1',
        messageId: 'm1',
        outcome: 'error',
        text: 'It failed.',
      },
    ]);
    const again = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      clientMessageId: 'c-1',
    });
    expect(again).toStrictEqual({
      kind: 'error',
      text: 'It failed.',
      messageId: 'm1',
      clientMessageId: 'c-1',
      turnId: 't1',
      attempts: [],
    });
    expect(harness.sent()).toHaveLength(0);
  });

  // Kills line 344 (a stored outcome given `clientMessageId: undefined`): a message steered into
  // the running turn is answered, afterwards, with that turn's stored end.
  it('a steered message without clientMessageId: its stored outcome has no clientMessageId member', async () => {
    let second: Promise<TurnOutcome> | undefined;
    let calls = 0;
    harness = await createHarness({
      overrides: { queueMode: 'steer' },
      tools: { definitions: [lookup], run: async () => ({ content: 'looked up' }) },
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ id: 'tool-1', name: 'lookup', input: {} }] },
          match: primary,
        },
      ],
      beforeStreamEnds: async () => {
        calls += 1;
        if (calls !== 1) return;
        second = harness!.orchestrator.runTurn({ sessionId: 's1', input: 'and also this' });
        await nextEvent(harness!, (event) => event.type === 'message-queued');
      },
    });
    const first = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    const steered = await second!;
    expect(steered).toMatchObject({ kind: 'reply', turnId: first.turnId, attempts: [] });
    expect(steered.messageId).toBe(first.steeredMessageIds?.[0]);
    expect(undefinedMembers(steered)).toEqual([]);
    expect(steered).not.toHaveProperty('clientMessageId');
  });
});
