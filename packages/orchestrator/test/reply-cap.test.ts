// maxReplyBytes: a reply that grows past it stops the call, ends the turn `error` with its own
// copy (no retry, no fallback: another model would be asked the same), streams a `discard`, and
// stores nothing of the partial text; a reply within it is untouched.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TURN_COPY } from '../src/turn-copy';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const models = { primary: 'anthropic/primary', fallbacks: ['backup/other'] };

function longReply(model: string, text: string) {
  return { behavior: { type: 'ok' as const, text, chunkSize: 100 }, match: { model } };
}

describe('maxReplyBytes', () => {
  it('ends the turn error past the cap, after one request, with nothing of the reply stored', async () => {
    harness = await createHarness({
      models,
      overrides: { maxReplyBytes: 1000, retry: { maxRetries: 2 } },
      script: [longReply('primary', 'q'.repeat(5000)), longReply('other', 'fallback answer')],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'write a lot' });
    expect(outcome).toMatchObject({
      kind: 'error',
      errorKind: 'invalid_request',
      text: DEFAULT_TURN_COPY.replyTooLarge,
    });
    expect(harness.sent().map((request) => request.model)).toEqual(['primary']);
    expect(harness.decisions()).toEqual(['final']);
    expect(harness.events.map((event) => event.type)).toContain('discard');
    // What reached the observers stopped at the cap (the piece that passed it was never passed on).
    const streamed = harness.events
      .flatMap((event) =>
        event.type === 'model-event' && event.event.type === 'text-delta' ? [event.event.text] : [],
      )
      .join('');
    expect(streamed.length).toBeLessThanOrEqual(1000);
    const entries = await harness.entries('s1');
    expect(JSON.stringify(entries)).not.toContain('qqqq');
    expect(entries.filter((entry) => entry.type === 'message').map((entry) => entry.role)).toEqual([
      'user',
    ]);
  });

  it('counts UTF-8 bytes and lets a reply up to the cap through whole', async () => {
    harness = await createHarness({
      models,
      overrides: { maxReplyBytes: 1000 },
      script: [longReply('primary', 'é'.repeat(500)), longReply('primary', 'é'.repeat(501))],
    });
    const fits = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'exactly' });
    expect(fits).toMatchObject({ kind: 'reply', text: 'é'.repeat(500) });
    const over = await harness.orchestrator.runTurn({ sessionId: 's2', input: 'one more' });
    expect(over).toMatchObject({ kind: 'error', text: DEFAULT_TURN_COPY.replyTooLarge });
  });

  it('refuses a cap that is not a positive number, naming the option', async () => {
    await expect(createHarness({ overrides: { maxReplyBytes: 0 } })).rejects.toMatchObject({
      name: 'OrchestratorConfigError',
      path: 'maxReplyBytes',
    });
  });
});
