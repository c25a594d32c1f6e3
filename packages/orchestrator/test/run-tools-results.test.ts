// What a tool run reports (run-tools.ts): its `tool-run` event's duration on the orchestrator's
// clock, a failure's text cut at 500 characters (and only past them), whatever was thrown, and a
// turn stopped while a `beforeToolCall` hook is asked: no tool result is reported for it.
import type { ToolRunner, TurnEvent } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const toolCall = {
  behavior: { type: 'ok' as const, toolCalls: [{ id: 't1', name: 'lookup', input: {} }] },
  match: primary,
};
const definitions = [{ name: 'lookup', inputSchema: { type: 'object' } }];

const toolRuns = (h: Harness) =>
  h.events.filter(
    (event): event is Extract<TurnEvent, { type: 'tool-run' }> => event.type === 'tool-run',
  );

/** Runs one turn whose only tool does `run`, and returns its `tool-run` event. */
async function runOnce(run: ToolRunner['run']) {
  harness = await createHarness({ tools: { definitions, run }, script: [toolCall] });
  const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'look' });
  expect(outcome.kind).toBe('reply');
  const runs = toolRuns(harness);
  expect(runs).toHaveLength(1);
  return runs[0]!;
}

describe('a tool run', () => {
  it('reports how long the tool took on the clock, and that it did not fail', async () => {
    const run = await runOnce(async () => {
      harness!.clock.advance(1_500);
      return { content: 'found' };
    });
    expect(run).toMatchObject({
      toolUseId: 't1',
      name: 'lookup',
      isError: false,
      content: 'found',
    });
    expect(run.durationMs).toBe(1_500);
  });

  it('keeps a failure’s message of exactly 500 characters whole', async () => {
    const message = 'x'.repeat(500);
    const run = await runOnce(async () => {
      throw new Error(message);
    });
    expect(run).toMatchObject({ isError: true, content: `The tool failed: ${message}` });
  });

  it('cuts a longer failure’s message at 500 characters', async () => {
    const message = `${'y'.repeat(500)}z`;
    const run = await runOnce(async () => {
      throw new Error(message);
    });
    expect(run).toMatchObject({ isError: true, content: `The tool failed: ${'y'.repeat(500)}…` });
  });

  it('reports a thrown value that is not an Error as its text', async () => {
    const run = await runOnce(async () => {
      throw 'no disk';
    });
    expect(run).toMatchObject({ isError: true, content: 'The tool failed: no disk' });
  });

  it('a turn stopped while its beforeToolCall hook is asked reports no tool result', async () => {
    const controller = new AbortController();
    let ran = false;
    harness = await createHarness({
      tools: {
        definitions,
        async run() {
          ran = true;
          return { content: 'found' };
        },
      },
      hooks: {
        beforeToolCall() {
          controller.abort();
          return { content: 'from the hook' };
        },
      },
      script: [toolCall],
    });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'look',
      signal: controller.signal,
    });
    expect(outcome.kind).toBe('aborted');
    expect(toolRuns(harness)).toEqual([]);
    expect(ran).toBe(false);
  });
});
