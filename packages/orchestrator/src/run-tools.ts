import type { ToolCall, ToolCallContext, ToolCallResult, ToolResultBlock } from '@keel/spec';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

/**
 * Runs the model's tool calls in order and returns their results. A tool that throws, one that
 * runs past `toolTimeoutMs`, or one no runner knows gives an error result: the turn goes on and
 * the model sees what happened.
 */
export async function runTools(
  runtime: TurnRuntime,
  turn: LiveTurn,
  calls: readonly ToolCall[],
): Promise<ToolResultBlock[]> {
  const results: ToolResultBlock[] = [];
  const signal = turn.controller.signal;
  for (const call of calls) {
    signal.throwIfAborted();
    const startedAt = runtime.clock.now();
    const result = await runOne(runtime, turn, call);
    results.push({
      type: 'tool_result',
      toolUseId: call.id,
      content: result.content,
      ...(result.isError === true ? { isError: true } : {}),
    });
    runtime.emitter.emit({
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      at: runtime.clock.now(),
      type: 'tool-run',
      toolUseId: call.id,
      name: call.name,
      isError: result.isError === true,
      durationMs: runtime.clock.now() - startedAt,
      content: result.content,
    });
  }
  return results;
}

async function runOne(
  runtime: TurnRuntime,
  turn: LiveTurn,
  call: ToolCall,
): Promise<ToolCallResult> {
  // The call's own signal: aborted with the turn, or when the call outlives its bound.
  const timeoutMs = runtime.settings.toolTimeoutMs;
  const controller = new AbortController();
  const stop = () => controller.abort(turn.controller.signal.reason);
  turn.controller.signal.addEventListener('abort', stop, { once: true });
  const timer = setTimeout(() => controller.abort(new ToolTimeout(timeoutMs)), timeoutMs);
  const context = {
    sessionId: turn.sessionId,
    turnId: turn.turnId,
    signal: controller.signal,
  };
  try {
    return await untilAborted(supply(runtime, call, context), controller.signal);
  } catch (error) {
    turn.controller.signal.throwIfAborted();
    if (error instanceof ToolTimeout) {
      return {
        content: `The tool "${call.name}" did not answer within ${timeoutMs} ms.`,
        isError: true,
      };
    }
    return { content: `The tool failed: ${describe(error)}`, isError: true };
  } finally {
    clearTimeout(timer);
    turn.controller.signal.removeEventListener('abort', stop);
  }
}

/** A hook's result, else the runner's. */
async function supply(
  runtime: TurnRuntime,
  call: ToolCall,
  context: ToolCallContext,
): Promise<ToolCallResult> {
  for (const hooks of runtime.hooks) {
    const supplied = await hooks.beforeToolCall?.({ ...context, call });
    if (supplied !== undefined) return supplied;
  }
  const known = runtime.tools?.definitions.some((definition) => definition.name === call.name);
  if (runtime.tools === undefined || known !== true) {
    return { content: `There is no tool named "${call.name}".`, isError: true };
  }
  return await runtime.tools.run(call, context);
}

/** Settles with `work`, or rejects with the signal's reason as soon as it aborts (a tool may not listen). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

class ToolTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`tool call timed out after ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
