import { readFileSync } from 'node:fs';
import type { ModelEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { cliErrorKind } from './cli-error-kind';
import { createCliStreamMapper } from './cli-stream-mapper';
import { parseCliMessage } from './parse-cli-message';

/** Replays a recorded stdout of the real CLI through the parser and the mapper. */
function replay(fixture: string, sessionId?: string) {
  const text = readFileSync(new URL(`./__fixtures__/${fixture}`, import.meta.url), 'utf8');
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
      { type: 'usage', inputTokens: 11, outputTokens: 7 },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('maps a tool run: the tool call, then the text after its result', () => {
    const { events } = replay('stream-json-tool-run.jsonl');
    expect(events).toEqual([
      {
        type: 'tool-call',
        id: 'toolu_probe_1',
        name: 'Bash',
        input: { command: 'echo fixture-ok', description: 'Print a word' },
      },
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
});
