import type { ModelPort, ToolRunner } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const toolCall = (id: string) => ({
  behavior: { type: 'ok' as const, toolCalls: [{ id, name: 'lookup', input: { q: id } }] },
  match: primary,
});

function countingTool(behaviour: (input: Record<string, unknown>) => string = () => 'found') {
  const runs: string[] = [];
  const tools: ToolRunner = {
    definitions: [{ name: 'lookup', description: 'Looks up', inputSchema: { type: 'object' } }],
    async run(call) {
      runs.push(call.id);
      return { content: behaviour(call.input) };
    },
  };
  return { tools, runs };
}

describe('tools: model → tool calls → results → model', () => {
  it('runs a tool call and answers with its result, each step an owned write', async () => {
    const { tools, runs } = countingTool();
    harness = await createHarness({ tools, script: [toolCall('t1')] });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'look it up' });
    expect(outcome.kind).toBe('reply');
    expect(runs).toEqual(['t1']);
    const body = JSON.stringify(harness.mock.requests[1]!.body);
    expect(body).toContain('"tool_use_id":"t1"');
    expect(body).toContain('found');
    const kinds = (await harness.entries('s1')).map((entry) =>
      entry.type === 'message'
        ? `${entry.role}`
        : `${entry.type}:${'phase' in entry ? entry.phase : ''}`,
    );
    expect(kinds).toEqual(['user', 'turn:start', 'assistant', 'tool', 'assistant', 'turn:end']);
  });

  it('a throwing tool becomes an error result, and the turn goes on', async () => {
    const { tools } = countingTool(() => {
      throw new Error('disk on fire');
    });
    harness = await createHarness({ tools, script: [toolCall('t1')] });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'go' });
    expect(outcome.kind).toBe('reply');
    const toolEntry = (await harness.entries('s1')).find(
      (entry) => entry.type === 'message' && entry.role === 'tool',
    );
    expect(toolEntry).toMatchObject({
      content: [
        {
          type: 'tool_result',
          toolUseId: 't1',
          isError: true,
          content: expect.stringContaining('disk on fire'),
        },
      ],
    });
    expect(harness.events.find((event) => event.type === 'tool-run')).toMatchObject({
      isError: true,
      name: 'lookup',
    });
  });

  it('stops after maxSteps model calls with a clear message', async () => {
    const { tools, runs } = countingTool();
    harness = await createHarness({
      tools,
      overrides: { maxSteps: 3 },
      script: ['a', 'b', 'c', 'd', 'e'].map(toolCall),
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'loop' });
    expect(outcome.kind).toBe('error');
    expect(outcome.text).toMatch(/step limit/);
    expect(harness.sent()).toHaveLength(3);
    expect(runs).toEqual(['a', 'b', 'c']);
  });

  it('a retry after a tool ran continues from the transcript and never runs the tool again', async () => {
    const { tools, runs } = countingTool();
    harness = await createHarness({
      tools,
      script: [toolCall('t1'), { behavior: { type: 'reset-before-headers' }, match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'go' });
    expect(outcome.kind).toBe('reply');
    expect(runs).toEqual(['t1']);
    expect(harness.decisions()).toEqual(['retry_same']);
    expect(harness.sent()).toHaveLength(3);
    expect(JSON.stringify(harness.mock.requests[2]!.body)).toContain('"tool_use_id":"t1"');
  });

  it('a tool the model invents gets an error result, not a crash', async () => {
    harness = await createHarness({
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ id: 'x', name: 'rm_rf', input: {} }] },
          match: primary,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'go' });
    expect(outcome.kind).toBe('reply');
    expect(JSON.stringify(harness.mock.requests[1]!.body)).toContain('There is no tool named');
  });
});

describe('a model that runs its own tools', () => {
  it('is not offered the orchestrator’s tools (claude-cli refuses a request carrying them)', async () => {
    const seen: Array<string[] | undefined> = [];
    const ownTools: ModelPort = {
      specificationVersion: 'v1',
      provider: 'cli',
      api: 'claude-cli',
      capabilities: { runsOwnTools: true, bindsSessions: false },
      async *stream(request) {
        seen.push(request.tools?.map((tool) => tool.name));
        yield { type: 'text-delta', text: 'done by myself' };
        yield { type: 'finish', reason: 'stop' };
      },
    };
    const local = await createHarness({
      tools: {
        definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
        async run() {
          return { content: 'never' };
        },
      },
      overrides: { router: { connect: () => ownTools } },
    });
    try {
      const outcome = await local.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
      expect(outcome).toMatchObject({ kind: 'reply', text: 'done by myself' });
      expect(seen).toEqual([undefined]);
    } finally {
      await local.close();
    }
  });
});
