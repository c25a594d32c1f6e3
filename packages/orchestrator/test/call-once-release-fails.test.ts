// call-once.ts counts a request as sent only once the fence let the session go: a release that
// fails sends nothing (`requestSent: false`) and takes nothing back; a stop during the stream
// leaves the session released (`reacquire` with a stopped signal is never asked).
import { afterEach, describe, expect, it } from 'vitest';
import { type FenceCall, recordedFences } from './call-once-fence-calls';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('the fence around one request', () => {
  it('a release that fails: no request, requestSent false, no reacquire', async () => {
    const calls: FenceCall[] = [];
    let failures = 1;
    harness = await createHarness({
      overrides: {
        fences: recordedFences(
          () => harness!.storage,
          calls,
          () => {
            if (failures === 0) return undefined;
            failures -= 1;
            return new Error('the lease could not be let go');
          },
        ),
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    const first = outcome.attempts[0];
    expect(first?.outcome).toBe('error');
    expect(first?.requestSent).toBe(false);
    // Only the releases that let go are followed by a request and a reacquire.
    const released = calls.filter((call) => call.method === 'release').length - 1;
    expect(calls.filter((call) => call.method === 'reacquire')).toHaveLength(released);
    expect(harness.sent()).toHaveLength(released);
    expect(calls[1]?.method).not.toBe('reacquire');
  });

  it('a stop during the stream: the session is not taken back with the stopped signal', async () => {
    const calls: FenceCall[] = [];
    const controller = new AbortController();
    harness = await createHarness({
      overrides: { fences: recordedFences(() => harness!.storage, calls) },
      script: [{ behavior: { type: 'stall', afterChunks: 1 }, times: 1 }],
    });
    // The answer stalls after its first piece; the caller leaves at that piece.
    harness.orchestrator.subscribe((event) => {
      if (event.type === 'model-event' && event.event.type === 'text-delta') {
        controller.abort(new Error('the caller left'));
      }
    });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      signal: controller.signal,
    });
    expect(outcome.kind).toBe('aborted');
    expect(harness.sent()).toHaveLength(1);
    expect(calls.map((call) => call.method)).toEqual(['release']);
  });
});
