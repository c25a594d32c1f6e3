// run-model-call.ts between attempts: a stop that lands after one attempt's decision ends the
// turn before another request (the failed attempt's decision becomes `final`), and a stop between
// two steps leaves the answered attempt as it was (an `ok` attempt gets no decision).
import { createSessionFence } from '@keel/session-fence';
import type { SessionFence, ToolRunner } from '@keel/spec';
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a stop between attempts', () => {
  it('after a rotate decision: no second attempt, the failed one is final, the turn aborted', async () => {
    const controller = new AbortController();
    harness = await createHarness({
      script: [{ behavior: mockFaults.overloaded(), match: { model: 'primary' }, times: 1 }],
    });
    harness.orchestrator.subscribe((event) => {
      if (event.type === 'decision' && event.label === 'rotate_profile') {
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
    expect(outcome.attempts.map(({ outcome, decision }) => ({ outcome, decision }))).toEqual([
      { outcome: 'error', decision: 'final' },
    ]);
  });

  it('after the tool results are written: the answered attempt keeps no decision, nothing more is sent', async () => {
    const controller = new AbortController();
    const tools: ToolRunner = {
      definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
      run: async () => ({ content: 'found' }),
    };
    harness = await createHarness({
      tools,
      script: [{ behavior: { type: 'ok', toolCalls: [{ name: 'lookup', input: {} }] }, times: 1 }],
      overrides: {
        // The caller leaves once the tool's result is written, before the next step's call.
        fences: (sessionId) => {
          const fence = createSessionFence({ storage: harness!.storage, sessionId });
          const append: SessionFence['append'] = async (entries, options) => {
            const result = await fence.append(entries, options);
            if (entries.some((entry) => entry.type === 'message' && entry.role === 'tool')) {
              controller.abort(new Error('the caller left'));
            }
            return result;
          };
          return new Proxy(fence, {
            get: (target, property) => {
              if (property === 'append') return append;
              const value: unknown = Reflect.get(target, property, target);
              return typeof value === 'function' ? value.bind(target) : value;
            },
          });
        },
      },
    });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      signal: controller.signal,
    });
    expect(outcome.kind).toBe('aborted');
    expect(harness.sent()).toHaveLength(1);
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.attempts[0]?.outcome).toBe('ok');
    expect(Object.keys(outcome.attempts[0] ?? {})).not.toContain('decision');
  });
});
