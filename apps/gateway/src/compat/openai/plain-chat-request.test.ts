import { describe, expect, it } from 'vitest';
import { chatRequestSchema } from './chat-request-schema';
import { plainChatRequest } from './plain-chat-request';

const base = { model: 'default', messages: [{ role: 'user', content: 'hi' }] };

/** Common bodies: the fast path must take each (else it saves nothing). */
const common: Record<string, unknown>[] = [
  base,
  {
    ...base,
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'developer', content: 'and kind' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello', tool_calls: null },
      { role: 'user', content: '' },
    ],
  },
  { ...base, stream: true, stream_options: { include_usage: true } },
  { ...base, stream: false, stream_options: null, temperature: 0, top_p: 1, user: 'u1' },
  { ...base, temperature: 2, top_p: 0, max_tokens: 64, max_completion_tokens: 1 },
  { ...base, seed: 4, logprobs: false, tools: undefined, n: undefined },
  { ...base, messages: [{ role: 'user', content: 'hi', name: 'ann' }] },
];

/** One field at a time made invalid or uncommon: each must go to the schema. */
const changes: Record<string, unknown>[] = [
  { model: '' },
  { model: 3 },
  { model: undefined },
  { messages: [] },
  { messages: 'hi' },
  { messages: [null] },
  { messages: [{ role: 'user', content: 3 }] },
  { messages: [{ role: 'user' }] },
  { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] },
  { messages: [{ role: 'assistant', content: null }] },
  { messages: [{ role: 'assistant', content: 'x', tool_calls: [] }] },
  { messages: [{ role: 'tool', tool_call_id: 'c', content: 'r' }] },
  { messages: [{ role: 'function', content: 'r' }] },
  { messages: [{ role: 'user', content: 'hi' }, 'x'] },
  { stream: 'yes' },
  { stream_options: [] },
  { stream_options: 'on' },
  { stream_options: { include_usage: 'yes' } },
  { temperature: 2.5 },
  { temperature: -1 },
  { temperature: '1' },
  { top_p: 1.5 },
  { max_tokens: 0 },
  { max_tokens: 1.5 },
  { max_tokens: 2 ** 60 },
  { max_completion_tokens: -3 },
  { user: 7 },
  { n: 1 },
  { n: 2 },
  { stop: 'x' },
  { stop: null },
  { tools: [] },
  { tool_choice: 'auto' },
  { response_format: { type: 'text' } },
];

describe('plainChatRequest', () => {
  it('takes the common bodies, each as the schema accepts it', () => {
    for (const body of common) {
      expect(plainChatRequest(body), JSON.stringify(body)).toBe(body);
      expect(chatRequestSchema.safeParse(body).success, JSON.stringify(body)).toBe(true);
    }
  });

  it('leaves every other body to the schema: never yes to one the schema refuses', () => {
    for (const change of changes) {
      for (const body of common) {
        const changed = { ...body, ...change };
        expect(plainChatRequest(changed), JSON.stringify(changed)).toBeUndefined();
      }
    }
    for (const body of [null, 'x', 3, [base], {}]) expect(plainChatRequest(body)).toBeUndefined();
  });
});
