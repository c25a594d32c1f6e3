// The one rule every wire applies to `toolChoice` before mapping it, tested once here.
import type { ModelRequest } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { toolChoiceOf } from './tool-choice-of';
import { UnsupportedRequestError } from './transport-error';

const weather = { name: 'weather', inputSchema: { type: 'object' } };
const base: ModelRequest = { messages: [{ role: 'user', content: 'hi' }] };

describe('toolChoiceOf', () => {
  it('passes every choice through when the request has tools', () => {
    for (const toolChoice of ['auto', 'none', 'required'] as const) {
      expect(toolChoiceOf({ ...base, tools: [weather], toolChoice })).toBe(toolChoice);
    }
    const named = { type: 'tool', name: 'weather' } as const;
    expect(toolChoiceOf({ ...base, tools: [weather], toolChoice: named })).toEqual(named);
  });

  it('leaves out auto and none without tools, and no choice at all', () => {
    expect(toolChoiceOf({ ...base, toolChoice: 'auto' })).toBeUndefined();
    expect(toolChoiceOf({ ...base, tools: [], toolChoice: 'none' })).toBeUndefined();
    expect(toolChoiceOf({ ...base, tools: [weather] })).toBeUndefined();
  });

  it('refuses required without tools, naming the field', () => {
    expect(() => toolChoiceOf({ ...base, toolChoice: 'required' })).toThrow(
      expect.objectContaining({
        name: 'UnsupportedRequestError',
        message: expect.stringContaining('toolChoice'),
      }),
    );
  });

  it('refuses a named tool that is not in tools', () => {
    const request: ModelRequest = {
      ...base,
      tools: [weather],
      toolChoice: { type: 'tool', name: 'clock' },
    };
    expect(() => toolChoiceOf(request)).toThrow(UnsupportedRequestError);
    expect(() => toolChoiceOf(request)).toThrow(/"clock"/);
  });
});
