// A client's retry of a message that is in the transcript but was never answered (the gateway
// crashed after writing it) is answered as that message: the turn names it, and the transcript
// keeps it once. A hand-made mutant that wrote every new input's message (run-turn.ts line 199:
// `true && input.type === 'new'`: a second message with the same clientMessageId) fails this test.
import type { MessageEntry } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a retry of a message a crash left unanswered', () => {
  it('answers that message: one user message in the transcript, the turn names it', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: 'answered' }, match: { model: 'primary' } }],
    });
    const stamp = new Date(Date.UTC(2026, 0, 1)).toISOString();
    // The crashed turn wrote the message and its start, and nothing after.
    await harness.storage.append('s1', [
      {
        type: 'message',
        id: 'm1',
        messageId: 'm1',
        timestamp: stamp,
        role: 'user',
        content: [{ type: 'text', text: 'hello' }],
        turnId: 't0',
        clientMessageId: 'c-1',
      },
      { type: 'turn', id: 'e1', timestamp: stamp, phase: 'start', turnId: 't0', messageId: 'm1' },
    ]);
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      clientMessageId: 'c-1',
    });
    expect(outcome).toMatchObject({
      kind: 'reply',
      text: 'answered',
      messageId: 'm1',
      clientMessageId: 'c-1',
    });
    const users = (await harness.entries('s1')).filter(
      (entry): entry is MessageEntry => entry.type === 'message' && entry.role === 'user',
    );
    expect(users.map((message) => message.messageId)).toEqual(['m1']);
    expect(harness.sent()).toHaveLength(1);
  });
});
