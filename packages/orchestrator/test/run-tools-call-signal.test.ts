// The signal runTools hands a tool (run-tools.ts runOne/untilAborted) once the call is over: it
// does not abort later (neither when the bound passes nor when the turn is stopped afterwards),
// it keeps no listener of the orchestrator (a tool may keep its signal, and a listener left on it
// would keep the call's closures alive with it), and a call past its bound aborts it with a
// TimeoutError naming the bound, so a tool can tell a timeout from a stop.
import { getEventListeners } from 'node:events';
import type { ToolCallContext, ToolRunner } from '@keel/spec';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runTools } from '../src/run-tools.js';
import { toolRunSetup } from './tool-run-setup';

const TIMEOUT_MS = 50;
const call = { id: 't1', name: 'lookup', input: {} };

function setup(run: ToolRunner['run']) {
  return toolRunSetup({
    tools: { definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }], run },
    toolTimeoutMs: TIMEOUT_MS,
  });
}

/** A tool that answers at once, keeping the signal it was given. */
function answering() {
  const seen: { signal?: AbortSignal } = {};
  const run = async (_call: unknown, context: ToolCallContext) => {
    seen.signal = context.signal;
    return { content: 'found' };
  };
  return { seen, run };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('runTools: the signal a tool was given, once the tool answered', () => {
  it('does not abort when the call’s bound passes later, and no timer is left behind', async () => {
    const { seen, run } = answering();
    const { runtime, turn } = setup(run);
    await expect(runTools(runtime, turn, [call])).resolves.toEqual([
      { type: 'tool_result', toolUseId: 't1', content: 'found' },
    ]);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(TIMEOUT_MS * 2);
    expect(seen.signal?.aborted).toBe(false);
  });

  it('does not abort when the turn is stopped after the call', async () => {
    const { seen, run } = answering();
    const { runtime, turn } = setup(run);
    await runTools(runtime, turn, [call]);
    turn.controller.abort(new Error('stopped later'));
    expect(seen.signal?.aborted).toBe(false);
  });

  it('keeps no listener of the orchestrator', async () => {
    const { seen, run } = answering();
    const { runtime, turn } = setup(run);
    await runTools(runtime, turn, [call]);
    expect(getEventListeners(seen.signal!, 'abort')).toHaveLength(0);
    expect(getEventListeners(turn.controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('runTools: a tool that never answers', () => {
  it('sees its signal abort with a TimeoutError naming the bound, and keeps no listener of the orchestrator', async () => {
    const seen: { signal?: AbortSignal } = {};
    const { runtime, turn } = setup((_call, context) => {
      seen.signal = context.signal;
      return new Promise(() => undefined);
    });
    const results = runTools(runtime, turn, [call]);
    await vi.advanceTimersByTimeAsync(TIMEOUT_MS);
    await expect(results).resolves.toEqual([
      {
        type: 'tool_result',
        toolUseId: 't1',
        content: `The tool "lookup" did not answer within ${TIMEOUT_MS} ms.`,
        isError: true,
      },
    ]);
    const reason = seen.signal?.reason as Error;
    expect(reason).toBeInstanceOf(Error);
    expect(reason.name).toBe('TimeoutError');
    expect(reason.message).toBe(`tool call timed out after ${TIMEOUT_MS} ms`);
    // The tool's promise never settles, so only `once` can take the orchestrator's listener off.
    expect(getEventListeners(seen.signal!, 'abort')).toHaveLength(0);
  });
});
