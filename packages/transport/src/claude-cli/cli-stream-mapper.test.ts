import { readFileSync } from 'node:fs';
import type { ModelEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { cliErrorKind } from './cli-error-kind';
import { createCliStreamMapper } from './cli-stream-mapper';
import { parseCliMessage } from './parse-cli-message';

/** Replays a recorded stdout of the real CLI through the parser and the mapper. */
function replay(fixture: string, sessionId?: string) {
  const text = readFileSync(
    new URL(`../../test/claude-cli-stream-json/${fixture}`, import.meta.url),
    'utf8',
  );
  const mapper = createCliStreamMapper({ sessionId, resumed: false });
  const events: ModelEvent[] = [];
  for (const line of text.split('\n')) {
    const message = parseCliMessage(line);
    if (message !== undefined) events.push(...mapper.map(message));
  }
  return { mapper, events };
}

describe('createCliStreamMapper on recorded Claude Code 2.1.332 output', () => {
  it('maps a text reply: session-bound, text, usage and finish', () => {
    const { mapper, events } = replay('stream-json-text.jsonl', 'gw');
    expect(events).toEqual([
      {
        type: 'session-bound',
        sessionId: 'gw',
        cliSessionId: '112159b3-3b49-438e-9847-b9281b825c7c',
        resumed: false,
      },
      { type: 'text-delta', text: 'Hello from probe 1' },
    ]);
    expect(mapper.result).toMatchObject({
      isError: false,
      subtype: 'success',
      stopReason: 'end_turn',
    });
    expect(mapper.finish()).toEqual([
      { type: 'usage', inputTokens: 11, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('maps a tool run: the tool call, its result (the CLI ran it), then the text after it', () => {
    const { events } = replay('stream-json-tool-run.jsonl');
    expect(events).toEqual([
      {
        type: 'tool-call',
        id: 'toolu_probe_1',
        name: 'Bash',
        input: { command: 'echo fixture-ok', description: 'Print a word' },
      },
      { type: 'tool-result', toolUseId: 'toolu_probe_1', content: 'fixture-ok' },
      { type: 'text-delta', text: 'Hello from probe 2' },
    ]);
  });

  it('keeps the synthetic API error line out of the text and exposes the error facts', () => {
    const { mapper, events } = replay('stream-json-api-error-529.jsonl', 'gw');
    expect(events.map((event) => event.type)).toEqual(['session-bound']);
    expect(mapper.syntheticTexts[0]).toMatch(/^API Error: 529/);
    const result = mapper.result;
    expect(result).toMatchObject({ isError: true, status: 529, errorType: 'overloaded_error' });
    expect(
      cliErrorKind({ status: result?.status, errorType: result?.errorType, text: result?.text }),
    ).toBe('overloaded');
  });

  it('ignores subagent messages, blank lines and non-JSON noise', () => {
    const mapper = createCliStreamMapper({ sessionId: undefined, resumed: true });
    const lines = [
      '',
      'not json',
      JSON.stringify({
        type: 'assistant',
        parent_tool_use_id: 'toolu_task',
        message: { model: 'm', content: [{ type: 'text', text: 'from a subagent' }] },
      }),
      JSON.stringify({ type: 'system', subtype: 'api_retry', attempt: 1, error_status: 529 }),
      JSON.stringify({
        type: 'assistant',
        parent_tool_use_id: null,
        message: { model: 'm', content: [{ type: 'text', text: 'top level' }] },
      }),
    ];
    const events = lines.flatMap((line) => {
      const message = parseCliMessage(line);
      return message === undefined ? [] : mapper.map(message);
    });
    expect(events).toEqual([{ type: 'text-delta', text: 'top level' }]);
  });

  it("reports the result's cache reads and writes, inside inputTokens and apart", () => {
    const mapper = createCliStreamMapper({ sessionId: undefined, resumed: false });
    const result = parseCliMessage(
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: 'ok',
        stop_reason: 'end_turn',
        usage: {
          input_tokens: 4,
          cache_creation_input_tokens: 310,
          cache_read_input_tokens: 14_200,
          output_tokens: 9,
          service_tier: 'standard',
        },
      }),
    );
    if (result !== undefined) mapper.map(result);
    expect(mapper.finish()[0]).toEqual({
      type: 'usage',
      inputTokens: 4 + 310 + 14_200,
      outputTokens: 9,
      cacheReadTokens: 14_200,
      cacheWriteTokens: 310,
    });
  });

  it('keeps a paragraph break between the texts of consecutive assistant messages', () => {
    const mapper = createCliStreamMapper({ sessionId: undefined, resumed: false });
    const assistantLine = (id: string, text: string) =>
      parseCliMessage(
        JSON.stringify({
          type: 'assistant',
          parent_tool_use_id: null,
          message: { id, model: 'm', content: [{ type: 'text', text }] },
        }),
      );
    const events = [
      assistantLine('msg_1', 'First message,'),
      assistantLine('msg_1', ' same message.'),
      assistantLine('msg_2', 'Second message.'),
    ].flatMap((message) => (message === undefined ? [] : mapper.map(message)));
    expect(events).toEqual([
      { type: 'text-delta', text: 'First message,' },
      { type: 'text-delta', text: ' same message.' },
      { type: 'text-delta', text: '\n\nSecond message.' },
    ]);
  });

  it('surfaces top-level tool results (text parts joined, errors flagged), never a subagent one', () => {
    const mapper = createCliStreamMapper({ sessionId: undefined, resumed: false });
    const userLine = (parent: string | null, content: unknown) =>
      parseCliMessage(
        JSON.stringify({
          type: 'user',
          parent_tool_use_id: parent,
          message: { role: 'user', content },
        }),
      );
    const events = [
      userLine(null, [
        { type: 'tool_result', tool_use_id: 'toolu_a', content: 'Exit code 1', is_error: true },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_b',
          content: [
            { type: 'text', text: 'line one' },
            { type: 'image', source: {} },
            { type: 'text', text: 'line two' },
          ],
        },
      ]),
      userLine('toolu_task', [{ type: 'tool_result', tool_use_id: 'toolu_sub', content: 'x' }]),
      userLine(null, 'a plain user echo'),
    ].flatMap((message) => (message === undefined ? [] : mapper.map(message)));
    expect(events).toEqual([
      { type: 'tool-result', toolUseId: 'toolu_a', content: 'Exit code 1', isError: true },
      { type: 'tool-result', toolUseId: 'toolu_b', content: 'line one\n[image]\nline two' },
    ]);
    expect(mapper.toolCallIds).toEqual([]);
  });
});
