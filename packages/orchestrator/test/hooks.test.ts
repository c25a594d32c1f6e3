import type { ToolRunner, TurnHooks } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };

function lookupTool() {
  const runs: string[] = [];
  const tools: ToolRunner = {
    definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
    async run(call) {
      runs.push(call.id);
      return { content: 'from the runner' };
    },
  };
  return { tools, runs };
}

/** The Anthropic request body the mock received, parsed. */
function body(h: Harness, index: number) {
  return h.mock.requests.filter((request) => request.api === 'anthropic-messages')[index]!.body as {
    system?: unknown;
    max_tokens?: number;
    messages: Array<{ content: unknown }>;
  };
}

describe('beforeModelCall: the request it returns is the request sent', () => {
  it('each hook sees the request the one before left; the last one is sent, on every attempt', async () => {
    const seen: Array<{ attempt: number; system: string | undefined }> = [];
    const hooks: TurnHooks[] = [
      {
        beforeModelCall({ request, attempt }) {
          seen.push({ attempt, system: request.system });
          return { ...request, system: `first:${attempt}`, maxTokens: 77 };
        },
      },
      { beforeModelCall: () => undefined },
      {
        beforeModelCall({ request }) {
          seen.push({ attempt: -1, system: request.system });
          return { ...request, system: `${request.system ?? ''}+second` };
        },
      },
    ];
    harness = await createHarness({
      hooks,
      overrides: { system: 'configured' },
      script: [{ behavior: { type: 'reset-before-headers' }, match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    expect(harness.sent()).toHaveLength(2);
    expect(seen).toEqual([
      { attempt: 1, system: 'configured' },
      { attempt: -1, system: 'first:1' },
      { attempt: 2, system: 'configured' },
      { attempt: -1, system: 'first:2' },
    ]);
    expect(body(harness, 0)).toMatchObject({ system: 'first:1+second', max_tokens: 77 });
    expect(body(harness, 1)).toMatchObject({ system: 'first:2+second', max_tokens: 77 });
  });

  it('a hook that changes the messages changes what the model is asked; the transcript keeps the user’s words', async () => {
    harness = await createHarness({
      hooks: {
        beforeModelCall: ({ request }) => ({
          ...request,
          messages: [{ role: 'user', content: 'rewritten by the hook' }],
        }),
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'original' });
    expect(outcome.text).toContain('rewritten by the hook');
    expect(JSON.stringify(body(harness, 0).messages)).not.toContain('original');
    const stored = JSON.stringify(await harness.entries('s1'));
    expect(stored).toContain('original');
  });

  it('a hook that changes a message in place changes it for that call only, not for later turns', async () => {
    let calls = 0;
    harness = await createHarness({
      hooks: {
        beforeModelCall: ({ request }) => {
          calls += 1;
          // Only the first call's first message; the next turn must see the user's own words.
          if (calls === 1)
            (request.messages[0] as { content: unknown }).content = 'changed in place';
          return undefined;
        },
      },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'first words' });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'second words' });
    // The mock's reply repeats what it was asked, so only the first message is compared.
    expect(JSON.stringify(body(harness, 0).messages[0])).toContain('changed in place');
    expect(body(harness, 1).messages[0]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'first words' }],
    });
  });

  it('a hook that throws ends the turn with error (unknown) before any request', async () => {
    harness = await createHarness({
      hooks: {
        beforeModelCall() {
          throw new Error('hook broke');
        },
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'unknown' });
    expect(harness.sent()).toEqual([]);
    expect(harness.events.filter((event) => event.type === 'turn-end')).toHaveLength(1);
  });
});

describe('beforeToolCall: a result it returns is used instead of running the tool', () => {
  it('the first hook with a result wins: the runner and later hooks are not called, the model sees that result', async () => {
    const { tools, runs } = lookupTool();
    const later: string[] = [];
    harness = await createHarness({
      tools,
      hooks: [
        { beforeToolCall: () => undefined },
        {
          beforeToolCall: ({ call }) =>
            call.id === 't1' ? { content: 'from the hook', isError: true } : undefined,
        },
        {
          beforeToolCall({ call }) {
            later.push(call.id);
            return undefined;
          },
        },
      ],
      script: [
        {
          behavior: {
            type: 'ok',
            toolCalls: [
              { id: 't1', name: 'lookup', input: {} },
              { id: 't2', name: 'lookup', input: {} },
            ],
          },
          match: primary,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'look' });
    expect(outcome.kind).toBe('reply');
    expect(runs).toEqual(['t2']);
    expect(later).toEqual(['t2']);
    const results = body(harness, 1).messages.at(-1)!.content;
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'from the hook', is_error: true },
      { type: 'tool_result', tool_use_id: 't2', content: 'from the runner' },
    ]);
    expect(harness.refused()).toEqual([]);
  });

  it('a hook that throws becomes that call’s error result and the turn goes on', async () => {
    const { tools, runs } = lookupTool();
    harness = await createHarness({
      tools,
      hooks: {
        beforeToolCall() {
          throw new Error('policy says no');
        },
      },
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ id: 't1', name: 'lookup', input: {} }] },
          match: primary,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'look' });
    expect(outcome.kind).toBe('reply');
    expect(runs).toEqual([]);
    expect(body(harness, 1).messages.at(-1)!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: 'The tool failed: policy says no',
        is_error: true,
      },
    ]);
  });
});
