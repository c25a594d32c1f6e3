// A turn's end leaves its text out only for a reply its assistant messages give back exactly
// (run-turn.ts's `once`); a repeated clientMessageId then rebuilds the reply from them. Any other
// end keeps its text. Hand-made mutants: `once` true for every reply (the join's comparison
// dropped, or `&&` made `||`) fails the first test (a reply its messages would give back
// differently lost its text); `once` computed for every kind (`true && …`) fails the second (an
// error whose copy matched the model's words lost its copy). And only a reply is rebuilt from its
// messages on a repeat: an end of another kind that came without its text (written by another
// implementation) gives an empty text, never the model's words of that turn (`storedOutcome`:
// mutants that rebuilt every kind, or gave another fallback text, fail the third test).
import type { TurnEntry } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeCliHarness, LS_STEPS } from './fake-cli-harness';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const turnEnd = async (h: Harness, turnId: string) =>
  (await h.entries('s1')).find(
    (entry): entry is TurnEntry =>
      entry.type === 'turn' && entry.phase === 'end' && entry.turnId === turnId,
  );

describe('the text of a turn’s end', () => {
  it('kept for a reply its messages would give back otherwise: a port that ran its own tools', async () => {
    // One call, several messages: the call's text is its pieces as they streamed (the port puts
    // a blank line before the closing text), and the messages hold them apart; joined with the
    // blank line a transcript puts between messages, they would give back a second one.
    harness = await createFakeCliHarness({
      steps: [{ type: 'text', text: 'Let me look.' }, ...LS_STEPS],
    });
    const request = { sessionId: 's1', input: 'What is here?', clientMessageId: 'c-1' };
    const outcome = await harness.orchestrator.runTurn(request);
    expect(outcome.kind).toBe('reply');
    expect(outcome.text).toContain('Let me look.');
    expect(outcome.text).toContain('There is a.txt.');
    expect(await turnEnd(harness, outcome.turnId)).toMatchObject({ text: outcome.text });

    const again = await harness.orchestrator.runTurn(request);
    expect(again).toMatchObject({ kind: 'reply', turnId: outcome.turnId, text: outcome.text });
  });

  it('kept for an error whose copy is what the model said: the step cap', async () => {
    harness = await createHarness({
      overrides: { maxSteps: 1, copy: { stepCapReached: 'Let me look.' } },
      tools: {
        definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
        run: async () => ({ content: 'found' }),
      },
      script: [
        {
          behavior: {
            type: 'ok',
            text: 'Let me look.',
            toolCalls: [{ id: 't1', name: 'lookup', input: {} }],
          },
          match: { model: 'primary' },
        },
      ],
    });
    const request = { sessionId: 's1', input: 'find it', clientMessageId: 'c-1' };
    const outcome = await harness.orchestrator.runTurn(request);
    expect(outcome).toMatchObject({ kind: 'error', text: 'Let me look.' });
    expect(await turnEnd(harness, outcome.turnId)).toMatchObject({
      outcome: 'error',
      text: 'Let me look.',
    });

    const again = await harness.orchestrator.runTurn(request);
    expect(again).toMatchObject({ kind: 'error', turnId: outcome.turnId, text: 'Let me look.' });
    expect(harness.sent()).toHaveLength(1);
  });

  it('only a reply is rebuilt from its messages: a stored error end without text gives none', async () => {
    harness = await createHarness();
    const stamp = new Date(Date.UTC(2026, 0, 1)).toISOString();
    await harness.storage.append('s1', [
      {
        type: 'message',
        id: 'm1',
        messageId: 'm1',
        timestamp: stamp,
        role: 'user',
        content: [{ type: 'text', text: 'find it' }],
        clientMessageId: 'c-1',
      },
      { type: 'turn', id: 'e1', timestamp: stamp, phase: 'start', turnId: 't1', messageId: 'm1' },
      {
        type: 'message',
        id: 'm2',
        messageId: 'm2',
        timestamp: stamp,
        role: 'assistant',
        content: [{ type: 'text', text: 'Let me look.' }],
        turnId: 't1',
      },
      {
        type: 'turn',
        id: 'e2',
        timestamp: stamp,
        phase: 'end',
        turnId: 't1',
        messageId: 'm1',
        outcome: 'error',
      },
    ]);
    const again = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'find it',
      clientMessageId: 'c-1',
    });
    expect(again).toMatchObject({ kind: 'error', turnId: 't1', text: '' });
    expect(harness.sent()).toHaveLength(0);
  });
});
