// A repeated clientMessageId joins the answer while it is on its way, and once it was answered gets
// the stored outcome from the transcript: nothing ran for the repeat, so it lists no attempts
// (session-queue.ts forgets an answer when it settles). A hand-made mutant that never forgot it
// (`if (false) inFlight.delete(key)`: every clientMessageId kept for the life of the process, a
// repeat handed the first caller's outcome) fails this test.
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a repeat after the answer', () => {
  it('gets the stored outcome, with no attempts of its own; a repeat on the way joins the answer', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: 'stored answer' }, match: { model: 'primary' } }],
    });
    const request = { sessionId: 's1', input: 'hello', clientMessageId: 'c-1' };
    const first = harness.orchestrator.runTurn(request);
    const joined = harness.orchestrator.runTurn(request);
    const [answered, alongside] = await Promise.all([first, joined]);
    expect(answered).toMatchObject({ kind: 'reply', text: 'stored answer' });
    expect(answered.attempts).toHaveLength(1);
    expect(alongside).toBe(answered);

    const again = await harness.orchestrator.runTurn(request);
    expect(again).toMatchObject({
      kind: 'reply',
      text: 'stored answer',
      turnId: answered.turnId,
      messageId: answered.messageId,
      model: 'anthropic/primary',
      provider: 'anthropic',
      clientMessageId: 'c-1',
      usage: answered.usage,
      attempts: [],
    });
    expect(harness.sent()).toHaveLength(1);
  });

  it('an error is stored with its kind and retry-after, and a repeat gets them back', async () => {
    harness = await createHarness({
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
      models: { primary: 'anthropic/primary' },
      overrides: { retry: { maxWaits: 0 } },
      script: [
        {
          behavior: mockFaults.rateLimited({ retryAfterSeconds: 2 }),
          match: { model: 'primary' },
          times: Number.POSITIVE_INFINITY,
        },
      ],
    });
    const request = { sessionId: 's1', input: 'hello', clientMessageId: 'c-1' };
    const answered = await harness.orchestrator.runTurn(request);
    expect(answered).toMatchObject({ kind: 'error', errorKind: 'rate_limit', retryAfterMs: 2_000 });
    const again = await harness.orchestrator.runTurn(request);
    expect(again).toEqual({
      kind: 'error',
      text: answered.text,
      messageId: answered.messageId,
      clientMessageId: 'c-1',
      turnId: answered.turnId,
      model: 'anthropic/primary',
      provider: 'anthropic',
      errorKind: 'rate_limit',
      retryAfterMs: 2_000,
      attempts: [],
    });
    expect(harness.sent()).toHaveLength(1);
  });
});
