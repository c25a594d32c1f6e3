import type { Message } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { buildCliPrompt, omittedMarker, splitPendingMessages } from './build-cli-prompt';

const user = (text: string): Message => ({ role: 'user', content: text });
const assistant = (text: string): Message => ({ role: 'assistant', content: text });

describe('splitPendingMessages', () => {
  it('sends every user message after the last assistant message, and keeps the rest as prior', () => {
    const { prior, pending } = splitPendingMessages([
      user('a'),
      assistant('b'),
      user('c'),
      user('d'),
    ]);
    expect(prior).toEqual([user('a'), assistant('b')]);
    expect(pending).toBe('c\n\nd');
  });

  it('renders tool blocks as text', () => {
    const { pending } = splitPendingMessages([
      {
        role: 'user',
        content: [{ type: 'tool_result', toolUseId: 't1', content: 'done', isError: true }],
      },
    ]);
    expect(pending).toBe('[tool result (t1) error: done]');
  });
});

describe('buildCliPrompt', () => {
  it('is the latest text alone without reseed context', () => {
    expect(buildCliPrompt({ latest: 'hello', maxChars: 100 })).toBe('hello');
    expect(buildCliPrompt({ latest: 'hello', reseed: { messages: [] }, maxChars: 100 })).toBe(
      'hello',
    );
  });

  it('puts the summary first, then the most recent messages, then the latest text', () => {
    const prompt = buildCliPrompt({
      latest: 'next?',
      reseed: {
        summary: 'We chose PostgreSQL.',
        messages: [
          user('q1'),
          assistant('a1'),
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'x', name: 'Read', input: { path: 'f' } }],
          },
        ],
      },
      maxChars: 10_000,
    });
    const order = [
      'We chose PostgreSQL.',
      'User: q1',
      'Assistant: a1',
      '[tool call Read (x): {"path":"f"}]',
      'next?',
    ].map((part) => prompt.indexOf(part));
    expect(order.every((position) => position >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(prompt).not.toContain('omitted');
  });

  it('keeps within the budget with a visible marker counting the omitted messages', () => {
    const messages = Array.from({ length: 50 }, (_, index) =>
      user(`message ${index} ${'x'.repeat(40)}`),
    );
    const prompt = buildCliPrompt({ latest: 'now', reseed: { messages }, maxChars: 500 });
    const kept = messages.filter((message) =>
      prompt.includes(`User: ${String(message.content)}`),
    ).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(50);
    expect(prompt).toContain(omittedMarker(50 - kept));
    expect(prompt).toContain('message 49 ');
    expect(prompt).not.toContain('message 0 ');
    const context = prompt.slice(
      prompt.indexOf('<earlier-messages>'),
      prompt.indexOf('</earlier-messages>'),
    );
    expect(context.length).toBeLessThanOrEqual(500 + omittedMarker(50).length + 40);
  });

  it('truncates an oversized summary with a marker and omits every message', () => {
    const prompt = buildCliPrompt({
      latest: 'now',
      reseed: { summary: 's'.repeat(1_000), messages: [user('one'), assistant('two')] },
      maxChars: 200,
    });
    expect(prompt).toContain('[… summary truncated …]');
    expect(prompt).toContain(omittedMarker(2));
    expect(prompt).not.toContain('User: one');
  });
});
