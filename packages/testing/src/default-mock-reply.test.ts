import { describe, expect, it } from 'vitest';
import { defaultMockReply, estimateTokens, lastUserText, stableHash } from './default-mock-reply';

describe('lastUserText', () => {
  it('reads the last user message across the three wire formats', () => {
    expect(lastUserText({ messages: 'plain input' })).toBe('plain input');
    expect(
      lastUserText({
        messages: [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'answer' },
          { role: 'user', content: [{ type: 'text', text: 'second' }] },
          { role: 'system', content: 'trailing system text' },
        ],
      }),
    ).toBe('second');
    expect(
      lastUserText({
        messages: [{ role: 'user', content: [{ type: 'input_text', text: 'resp' }] }],
      }),
    ).toBe('resp');
    expect(
      lastUserText({ messages: [{ type: 'function_call_output', output: 'tool said' }] }),
    ).toBe('tool said');
    expect(lastUserText({ messages: undefined })).toBe('');
  });

  it('skips <system-reminder> blocks unless nothing else is there', () => {
    const content = [
      { type: 'text', text: '<system-reminder>\nnoise\n</system-reminder>' },
      { type: 'text', text: 'the real question' },
    ];
    expect(lastUserText({ messages: [{ role: 'user', content }] })).toBe('the real question');
    expect(lastUserText({ messages: [{ role: 'user', content: content.slice(0, 1) }] })).toContain(
      'noise',
    );
  });

  it('reads tool_result content', () => {
    const content = [
      { type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'out' }] },
    ];
    expect(lastUserText({ messages: [{ role: 'user', content }] })).toBe('out');
  });
});

describe('defaultMockReply', () => {
  it('is stable for equal input and differs for different input', () => {
    const a = defaultMockReply({ messages: [{ role: 'user', content: 'hello' }] });
    expect(defaultMockReply({ messages: 'hello' })).toBe(a);
    expect(defaultMockReply({ messages: 'hello!' })).not.toBe(a);
    expect(a).toBe(`Mock reply ${stableHash('hello')}: you said "hello".`);
  });

  it('shortens long input', () => {
    const reply = defaultMockReply({ messages: 'x'.repeat(500) });
    expect(reply.length).toBeLessThan(120);
    expect(reply).toContain('...');
  });
});

describe('estimateTokens', () => {
  it('grows with the input, at about four characters per token', () => {
    expect(estimateTokens(undefined)).toBe(1);
    expect(estimateTokens('abcd'.repeat(100))).toBe(100);
    expect(estimateTokens({ a: 'b' })).toBe(3);
  });
});
