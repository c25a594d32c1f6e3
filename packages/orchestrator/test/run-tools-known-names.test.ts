// Which calls runTools hands to the ToolRunner (run-tools.ts supply): a call naming any one of the
// runner's definitions runs, and a call naming none of them (the model invented it) gets an error
// result without the runner ever seeing it.
import type { ToolCall, ToolRunner, TurnEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { runTools } from '../src/run-tools.js';
import { toolRunSetup } from './tool-run-setup';

function setup() {
  const ran: string[] = [];
  const emitted: TurnEvent[] = [];
  const tools: ToolRunner = {
    definitions: [
      { name: 'lookup', inputSchema: { type: 'object' } },
      { name: 'fetch', inputSchema: { type: 'object' } },
    ],
    async run(call) {
      ran.push(call.name);
      return { content: `ran ${call.name}` };
    },
  };
  const { runtime, turn } = toolRunSetup({
    tools,
    toolTimeoutMs: 60_000,
    emit: (event) => emitted.push(event),
  });
  return { runtime, turn, ran, emitted };
}

const named = (id: string, name: string): ToolCall => ({ id, name, input: {} });

describe('runTools: a call’s name against the runner’s definitions', () => {
  it('runs a call naming one of several tools', async () => {
    const { runtime, turn, ran } = setup();
    await expect(runTools(runtime, turn, [named('t1', 'fetch')])).resolves.toEqual([
      { type: 'tool_result', toolUseId: 't1', content: 'ran fetch' },
    ]);
    expect(ran).toEqual(['fetch']);
  });

  it('answers a call naming no tool with an error result, never reaching the runner', async () => {
    const { runtime, turn, ran, emitted } = setup();
    await expect(runTools(runtime, turn, [named('t1', 'invented')])).resolves.toEqual([
      {
        type: 'tool_result',
        toolUseId: 't1',
        content: 'There is no tool named "invented".',
        isError: true,
      },
    ]);
    expect(ran).toEqual([]);
    expect(emitted).toMatchObject([{ type: 'tool-run', name: 'invented', isError: true }]);
  });
});
