import type { ToolRunner } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const toolCall = (id: string) => ({
  behavior: { type: 'ok' as const, toolCalls: [{ id, name: 'wait', input: {} }] },
  match: primary,
});

/** A tool that never answers on its own; it records whether its signal was aborted and why. */
function hangingTool() {
  const aborts: unknown[] = [];
  const tools: ToolRunner = {
    definitions: [{ name: 'wait', inputSchema: { type: 'object' } }],
    run(_call, context) {
      context.signal.addEventListener('abort', () => aborts.push(context.signal.reason));
      return new Promise(() => undefined);
    },
  };
  return { tools, aborts };
}

function toolResults(harness: Harness, sessionId: string) {
  return harness
    .entries(sessionId)
    .then((entries) =>
      entries.flatMap((entry) =>
        entry.type === 'message' && entry.role === 'tool' ? entry.content : [],
      ),
    );
}

describe('a tool that does not answer (toolTimeoutMs)', () => {
  it('becomes an error result naming the bound, its signal aborts, and the turn goes on', async () => {
    const { tools, aborts } = hangingTool();
    harness = await createHarness({
      tools,
      overrides: { toolTimeoutMs: 40 },
      script: [toolCall('t1')],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'wait' });
    expect(outcome.kind).toBe('reply');
    expect(await toolResults(harness, 's1')).toEqual([
      {
        type: 'tool_result',
        toolUseId: 't1',
        isError: true,
        content: 'The tool "wait" did not answer within 40 ms.',
      },
    ]);
    expect(aborts).toHaveLength(1);
    expect(harness.events.find((event) => event.type === 'tool-run')).toMatchObject({
      isError: true,
      content: 'The tool "wait" did not answer within 40 ms.',
    });
  });

  it('bounds a beforeToolCall hook that hangs too', async () => {
    harness = await createHarness({
      tools: hangingTool().tools,
      hooks: { beforeToolCall: () => new Promise(() => undefined) },
      overrides: { toolTimeoutMs: 40 },
      script: [toolCall('t1')],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'wait' });
    expect(outcome.kind).toBe('reply');
    expect((await toolResults(harness, 's1'))[0]).toMatchObject({ isError: true });
  });

  it('a tool that answers in time keeps its result, carried by the tool-run event', async () => {
    const tools: ToolRunner = {
      definitions: [{ name: 'wait', inputSchema: { type: 'object' } }],
      run: async () => ({ content: 'done' }),
    };
    harness = await createHarness({
      tools,
      overrides: { toolTimeoutMs: 60_000 },
      script: [toolCall('t1')],
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'wait' });
    expect(await toolResults(harness, 's1')).toEqual([
      { type: 'tool_result', toolUseId: 't1', content: 'done' },
    ]);
    expect(harness.events.find((event) => event.type === 'tool-run')).toMatchObject({
      isError: false,
      content: 'done',
    });
  });

  it('is checked: a bound that is not a positive number is refused, naming the option', async () => {
    await expect(createHarness({ overrides: { toolTimeoutMs: 0 } })).rejects.toThrow(
      /toolTimeoutMs/,
    );
  });
});
