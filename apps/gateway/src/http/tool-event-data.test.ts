import type { TurnEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { trimEvent } from '../observe/trim-event';
import { MAX_TOOL_TEXT, toolCallData, toolResultData } from './tool-event-data';

const base = { sessionId: 's', turnId: 't', at: 1 };
const run = (content: string | undefined): Extract<TurnEvent, { type: 'tool-run' }> => ({
  ...base,
  type: 'tool-run',
  toolUseId: 'u1',
  name: 'fs__read_text_file',
  isError: false,
  durationMs: 7,
  ...(content === undefined ? {} : { content }),
});

describe('tool events on the stream', () => {
  it('a tool call carries its arguments', () => {
    const call = {
      type: 'tool-call' as const,
      id: 'u1',
      name: 'fs__list',
      input: { path: '/tmp' },
    };
    expect(toolCallData(2, call)).toEqual({
      attempt: 2,
      id: 'u1',
      name: 'fs__list',
      input: { path: '/tmp' },
    });
  });

  it('arguments too long are cut to the beginning of their JSON, marked truncated', () => {
    const call = {
      type: 'tool-call' as const,
      id: 'u1',
      name: 'w',
      input: { text: 'y'.repeat(MAX_TOOL_TEXT) },
    };
    const data = toolCallData(1, call);
    expect(data).toMatchObject({ truncated: true });
    expect(String(data['input'])).toMatch(/^\{"text":"yyy/);
    expect(String(data['input'])).toHaveLength(MAX_TOOL_TEXT + 1);
  });

  it('a result carries its content, cut at the bound', () => {
    expect(toolResultData(run('hello'))).toEqual({
      id: 'u1',
      name: 'fs__read_text_file',
      isError: false,
      durationMs: 7,
      content: 'hello',
    });
    const exact = toolResultData(run('z'.repeat(MAX_TOOL_TEXT)));
    expect(exact['truncated']).toBeUndefined();
    const long = toolResultData(run('z'.repeat(MAX_TOOL_TEXT + 1)));
    expect(long).toMatchObject({ truncated: true });
    expect(String(long['content'])).toHaveLength(MAX_TOOL_TEXT + 1);
    expect(toolResultData(run(undefined))).not.toHaveProperty('content');
  });

  it("the event log cuts a tool-run's long content too", () => {
    const event = run('q'.repeat(100_000));
    const cut = trimEvent(event, JSON.stringify(event).length, 4096);
    expect(cut).toMatchObject({ type: 'tool-run', truncated: true, name: 'fs__read_text_file' });
    expect(JSON.stringify(cut).length).toBeLessThanOrEqual(4096);
  });
});
