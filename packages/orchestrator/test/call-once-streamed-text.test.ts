// call-once.ts marks an attempt as having streamed text when a `text-delta` or a `refusal` reached
// the stream: a failure after either needs a `discard` (clients drop what they showed), a failure
// after output that was no text (a tool call) does not.
import type { ModelTarget } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The first stream of the turn fails just before its `finish`, after all its other events. */
function failFirstStream(): (target: ModelTarget) => void {
  let failed = false;
  return () => {
    if (failed) return;
    failed = true;
    throw new Error('the connection dropped before the end');
  };
}

const discards = (h: Harness) => h.events.filter((event) => event.type === 'discard');

describe('a failed attempt’s discard, by what it streamed', () => {
  it('a refusal, then the failure: the attempt is discarded', async () => {
    harness = await createHarness({
      models: { primary: 'backup/fallback' },
      script: [{ behavior: { type: 'ok', refusal: 'I cannot help with that.' }, times: 1 }],
      beforeStreamEnds: failFirstStream(),
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    const refusals = harness.events.filter(
      (event) => event.type === 'model-event' && event.event.type === 'refusal',
    );
    expect(refusals.length).toBeGreaterThan(0);
    expect(outcome.attempts[0]?.outcome).toBe('error');
    expect(discards(harness)).toMatchObject([{ type: 'discard', attempt: 1 }]);
  });

  it('a tool call and no text, then the failure: nothing to discard', async () => {
    harness = await createHarness({
      script: [
        {
          behavior: { type: 'ok', text: '', toolCalls: [{ name: 'lookup', input: {} }] },
          times: 1,
        },
      ],
      beforeStreamEnds: failFirstStream(),
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    const toolCalls = harness.events.filter(
      (event) => event.type === 'model-event' && event.event.type === 'tool-call',
    );
    expect(toolCalls.length).toBeGreaterThan(0);
    expect(outcome.attempts[0]?.outcome).toBe('error');
    expect(discards(harness)).toEqual([]);
  });
});
