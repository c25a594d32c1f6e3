import type { ToolCall, ToolCallResult, ToolResultBlock } from '@keel/spec';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

/**
 * Runs the model's tool calls in order and returns their results. A tool that throws, or one no
 * runner knows, gives an error result: the turn goes on and the model sees what happened.
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
    });
  }
  return results;
}

async function runOne(
  runtime: TurnRuntime,
  turn: LiveTurn,
  call: ToolCall,
): Promise<ToolCallResult> {
  const context = {
    sessionId: turn.sessionId,
    turnId: turn.turnId,
    signal: turn.controller.signal,
  };
  try {
    for (const hooks of runtime.hooks) {
      const supplied = await hooks.beforeToolCall?.({ ...context, call });
      if (supplied !== undefined) return supplied;
    }
    const known = runtime.tools?.definitions.some((definition) => definition.name === call.name);
    if (runtime.tools === undefined || known !== true) {
      return { content: `There is no tool named "${call.name}".`, isError: true };
    }
    return await runtime.tools.run(call, context);
  } catch (error) {
    turn.controller.signal.throwIfAborted();
    return { content: `The tool failed: ${describe(error)}`, isError: true };
  }
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
