// How a stateless call (`runCall`, run-call.ts) ends besides a model's answer: a caller signal
// already aborted sends nothing, the turn deadline ends it `error` (`timeout`), a hook that throws
// ends it `error` with the error's kind (never its text), and a call with no id gets `call-<id>`.
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const conversation = { messages: [{ role: 'user' as const, content: 'What is 2 + 2?' }] };

describe('a stateless call', () => {
  it('whose caller already stopped ends aborted and sends nothing', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: '4.' }, match: primary }],
    });
    const outcome = await harness.orchestrator.runCall({
      request: conversation,
      signal: AbortSignal.abort(),
    });
    expect(outcome).toMatchObject({ kind: 'aborted', errorKind: 'caller_abort', content: [] });
    expect(harness.sent()).toEqual([]);
  });

  it('that runs past turnTimeoutMs ends error (timeout) with the deadline text', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'hang' }, match: primary }],
      overrides: { turnTimeoutMs: 50, copy: { deadlineReached: 'Too slow.' } },
    });
    const outcome = await harness.orchestrator.runCall({ request: conversation });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'timeout', text: 'Too slow.' });
  });

  it('whose beforeModelCall hook throws ends error, without the error’s text', async () => {
    harness = await createHarness({
      hooks: {
        beforeModelCall() {
          throw new Error('secret hook detail');
        },
      },
    });
    const outcome = await harness.orchestrator.runCall({ request: conversation });
    expect(outcome.kind).toBe('error');
    expect(outcome.errorKind).toBeDefined();
    expect(outcome.text).not.toBe('');
    expect(outcome.text).not.toContain('secret');
    expect(harness.sent()).toEqual([]);
    const ends = harness.events.filter((event) => event.type === 'turn-end');
    expect(ends).toHaveLength(1);
  });

  it('with no callId is named `call-<id>`, in its outcome and its events', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: '4.' }, match: primary }],
    });
    const outcome = await harness.orchestrator.runCall({ request: conversation });
    expect(outcome.callId).toMatch(/^call-.+/);
    expect(harness.events.map((event) => event.sessionId)).toEqual(
      harness.events.map(() => outcome.callId),
    );
    const end = harness.events.find((event) => event.type === 'turn-end');
    expect(end).toMatchObject({ outcome: { messageId: outcome.callId, turnId: outcome.turnId } });
  });
});
