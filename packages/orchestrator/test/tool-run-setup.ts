import type { ToolRunner, TurnEvent } from '@keel/spec';
import type { LiveTurn, TurnRuntime } from '../src/turn-runtime.js';

/**
 * The runtime and live turn runTools reads (run-tools.ts), and nothing more: its tools, hooks, tool
 * timeout, clock and emitter; the turn's ids and controller.
 */
export function toolRunSetup(options: {
  tools: ToolRunner;
  toolTimeoutMs: number;
  emit?: (event: TurnEvent) => void;
}): { runtime: TurnRuntime; turn: LiveTurn } {
  const runtime = {
    tools: options.tools,
    hooks: [],
    settings: { toolTimeoutMs: options.toolTimeoutMs },
    clock: { now: () => 0 },
    emitter: { emit: options.emit ?? (() => undefined) },
  } as unknown as TurnRuntime;
  const turn = {
    sessionId: 's1',
    turnId: 'turn-1',
    controller: new AbortController(),
  } as unknown as LiveTurn;
  return { runtime, turn };
}
