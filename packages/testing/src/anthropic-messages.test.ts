import { describe, expect, it } from 'vitest';
import { useMockProvider } from '../test/use-mock-provider';

const mock = useMockProvider();

const user = (text: string) => [{ role: 'user' as const, content: text }];

describe('anthropic messages', () => {
  it('answers non-streaming with the deterministic default reply and usage', async () => {
    const first = await mock.anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      messages: user('hello there'),
    });
    const second = await mock.anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      messages: user('hello there'),
    });
    const other = await mock.anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      messages: user('something else'),
    });
    expect(first.content[0]).toMatchObject({ type: 'text' });
    const text = first.content[0]?.type === 'text' ? first.content[0].text : '';
    expect(text).toContain('hello there');
    expect(second.content).toEqual(first.content);
    expect(other.content).not.toEqual(first.content);
    expect(first.stop_reason).toBe('end_turn');
    expect(first.model).toBe('claude-test');
    expect(first.usage.input_tokens).toBeGreaterThan(0);
    expect(first.usage.output_tokens).toBeGreaterThan(0);
  });

  it('streams text and tool_use blocks that the SDK accumulates into a final message', async () => {
    mock.provider.enqueue({
      type: 'ok',
      text: 'Let me check the weather.',
      toolCalls: [{ name: 'get_weather', input: { city: 'Paris', days: 3 } }],
      usage: { inputTokens: 42, outputTokens: 17 },
    });
    const stream = mock.anthropic.messages.stream({
      model: 'claude-test',
      max_tokens: 100,
      messages: user('weather?'),
    });
    const deltas: string[] = [];
    stream.on('text', (delta) => deltas.push(delta));
    const message = await stream.finalMessage();
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Let me check the weather.');
    expect(message.content).toEqual([
      { type: 'text', text: 'Let me check the weather.' },
      {
        type: 'tool_use',
        id: 'toolu_mock_1',
        name: 'get_weather',
        input: { city: 'Paris', days: 3 },
      },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage.input_tokens).toBe(42);
    expect(message.usage.output_tokens).toBe(17);
  });
});

describe('anthropic messages tool use', () => {
  it('answers a non-streaming tool_use without a text block', async () => {
    mock.provider.enqueue({ type: 'ok', toolCalls: [{ name: 'Bash', input: { command: 'ls' } }] });
    const message = await mock.anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      messages: user('list'),
    });
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'toolu_mock_1', name: 'Bash', input: { command: 'ls' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('streams the documented event sequence', async () => {
    mock.provider.enqueue({
      type: 'ok',
      text: 'hi',
      toolCalls: [{ name: 't', input: { k: 'v' } }],
    });
    const stream = await mock.anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      messages: user('x'),
      stream: true,
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });
});
