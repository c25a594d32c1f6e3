// The reply as Anthropic's message: usage without the cache counts in input_tokens, stop reasons,
// the answering model.
import type { CallOutcome } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { anthropicUsage, stopReason, toAnthropicMessage } from './anthropic-message';

describe('anthropic message', () => {
  it('input_tokens leaves out the cached tokens Keel counts in inputTokens', () => {
    expect(
      anthropicUsage({
        inputTokens: 100,
        outputTokens: 7,
        cacheReadTokens: 60,
        cacheWriteTokens: 10,
      }),
    ).toEqual({
      input_tokens: 30,
      output_tokens: 7,
      cache_read_input_tokens: 60,
      cache_creation_input_tokens: 10,
    });
    expect(anthropicUsage(undefined).input_tokens).toBe(0);
  });

  it('maps finish reasons', () => {
    expect(stopReason('stop', [])).toBe('end_turn');
    expect(stopReason('length', [])).toBe('max_tokens');
    expect(stopReason('tool-calls', [])).toBe('tool_use');
    expect(stopReason('content-filter', [])).toBe('refusal');
    expect(stopReason(undefined, [{ type: 'tool_use', id: 'a', name: 'n', input: {} }])).toBe(
      'tool_use',
    );
  });

  it('names the model that answered, not the route', () => {
    const outcome = {
      kind: 'reply',
      text: 'Hi.',
      content: [{ type: 'text', text: 'Hi.' }],
      finish: 'stop',
      callId: 'anthropic-1',
      turnId: 't',
      model: 'backup/small',
      attempts: [],
    } satisfies CallOutcome;
    expect(toAnthropicMessage(outcome, { id: 'msg_1', model: 'default' })).toEqual({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'backup/small',
      content: [{ type: 'text', text: 'Hi.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 0,
        output_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
    });
  });
});
