// Every turn announces its start once and its end once, whether it ends before anything was
// written or fails after it started (run-turn.ts's `start`: the error path calls it again, and it
// must not emit twice; found by a hand-made mutant that dropped the `started` check), and names
// the message it answers (a mutant that left out its clientMessageId).
import type { TurnEvent } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const kinds = (events: TurnEvent[]) =>
  events.filter((event) => event.type === 'turn-start' || event.type === 'turn-end');

describe('one turn-start and one turn-end per turn', () => {
  it('a turn stopped while a tool runs (it fails after it started)', async () => {
    const controller = new AbortController();
    harness = await createHarness({
      tools: {
        definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
        async run() {
          controller.abort();
          return { content: 'late' };
        },
      },
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ id: 't1', name: 'lookup', input: {} }] },
          match: primary,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'look',
      signal: controller.signal,
    });
    expect(outcome.kind).toBe('aborted');
    expect(kinds(harness.events).map((event) => event.type)).toEqual(['turn-start', 'turn-end']);
    expect(new Set(kinds(harness.events).map((event) => event.turnId))).toEqual(
      new Set([outcome.turnId]),
    );
  });

  it('a turn stopped before it started (the error path announces the start)', async () => {
    harness = await createHarness();
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      signal: AbortSignal.abort(),
    });
    expect(outcome.kind).toBe('aborted');
    expect(kinds(harness.events).map((event) => event.type)).toEqual(['turn-start', 'turn-end']);
  });

  it('the turn-start names the message and its clientMessageId', async () => {
    harness = await createHarness({ defaultReply: () => 'hi' });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      clientMessageId: 'c-7',
    });
    expect(outcome).toMatchObject({ kind: 'reply', clientMessageId: 'c-7' });
    expect(harness.events.find((event) => event.type === 'turn-start')).toMatchObject({
      turnId: outcome.turnId,
      messageId: outcome.messageId,
      clientMessageId: 'c-7',
    });
  });
});
