import type { CallOutcome } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { outcomeChunks } from './chat-chunks';
import { chatCompletionOf } from './chat-completion';

const reply: CallOutcome = {
  kind: 'reply',
  text: 'Looking.',
  content: [
    { type: 'text', text: 'Looking.' },
    { type: 'tool_use', id: 'toolu_1', name: 'find', input: { q: 'keel' } },
  ],
  finish: 'tool-calls',
  callId: 'openai-0000-1111',
  turnId: 't',
  model: 'a/big',
  usage: { inputTokens: 7, outputTokens: 3, cacheReadTokens: 2 },
  attempts: [],
};

describe('outcomeChunks', () => {
  it('the role, the text, each tool call numbered, the finish, then usage when asked', () => {
    const chunks = outcomeChunks(reply, true);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? chunk.usage)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Looking.' },
      {
        tool_calls: [
          {
            index: 0,
            id: 'toolu_1',
            type: 'function',
            function: { name: 'find', arguments: '{"q":"keel"}' },
          },
        ],
      },
      {},
      {
        prompt_tokens: 7,
        completion_tokens: 3,
        total_tokens: 10,
        prompt_tokens_details: { cached_tokens: 2 },
      },
    ]);
    expect(chunks[3]?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(new Set(chunks.map((chunk) => `${chunk.id} ${chunk.model}`))).toEqual(
      new Set(['chatcmpl-00001111 a/big']),
    );
    expect(outcomeChunks(reply, false).some((chunk) => chunk.usage !== undefined)).toBe(false);
  });
});

describe('chatCompletionOf', () => {
  it('content is null when the answer is only tool calls; the finish reason says so', () => {
    const completion = chatCompletionOf({
      ...reply,
      content: reply.content.slice(1),
      finish: 'stop',
    });
    expect(completion.choices[0]).toMatchObject({
      message: { content: null, tool_calls: [{ id: 'toolu_1' }] },
      finish_reason: 'tool_calls',
    });
    expect(completion.model).toBe('a/big');
  });
});
