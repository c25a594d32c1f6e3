// The entries a turn writes, member by member (the transcript is a persisted format other readers
// rely on): the user message and the turn's start both name the client's message id; the model's
// messages name the model that wrote them, a tool result written for a port that ran its own tools
// does not. Hand-made mutants: the turn start without its clientMessageId (run-turn.ts line 216–218:
// `{}` for it, or its check inverted) fails the first test; every message of a call named after the
// model (line 242: `true ? { model, provider } : {}`) fails the second.
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeCliHarness, LS_STEPS } from './fake-cli-harness';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const stamped = { id: expect.any(String), timestamp: expect.any(String) };

describe('the entries a turn writes', () => {
  it('a reply to a message with a clientMessageId: message, start, reply, end', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: 'hi there' }, match: { model: 'primary' } }],
    });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      clientMessageId: 'c-1',
    });
    expect(outcome.kind).toBe('reply');
    const { turnId, messageId } = outcome;
    expect(await harness.entries('s1')).toStrictEqual([
      {
        type: 'message',
        ...stamped,
        id: messageId,
        messageId,
        role: 'user',
        content: [{ type: 'text', text: 'hello' }],
        turnId,
        clientMessageId: 'c-1',
      },
      { type: 'turn', ...stamped, phase: 'start', turnId, messageId, clientMessageId: 'c-1' },
      {
        type: 'message',
        ...stamped,
        messageId: expect.any(String),
        role: 'assistant',
        content: [{ type: 'text', text: 'hi there' }],
        turnId,
        model: 'anthropic/primary',
        provider: 'anthropic',
        usage: outcome.usage,
      },
      {
        type: 'turn',
        ...stamped,
        phase: 'end',
        turnId,
        messageId,
        clientMessageId: 'c-1',
        outcome: 'reply',
        model: 'anthropic/primary',
        provider: 'anthropic',
        usage: outcome.usage,
      },
    ]);
  });

  it('a call that ran its own tools: the tool result names no model', async () => {
    harness = await createFakeCliHarness({ steps: LS_STEPS });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'What is here?' });
    expect(outcome.kind).toBe('reply');
    const written = (await harness.entries('s1')).flatMap((entry) =>
      entry.type === 'message' && entry.role !== 'user'
        ? [{ role: entry.role, model: entry.model, provider: entry.provider }]
        : [],
    );
    expect(written).toEqual([
      { role: 'assistant', model: 'cli/claude-fake', provider: 'cli' },
      { role: 'tool', model: undefined, provider: undefined },
      { role: 'assistant', model: 'cli/claude-fake', provider: 'cli' },
    ]);
  });
});
