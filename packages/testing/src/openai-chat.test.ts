import { describe, expect, it } from 'vitest';
import { useMockProvider } from '../test/use-mock-provider';

const mock = useMockProvider();

const user = (text: string) => [{ role: 'user' as const, content: text }];

describe('openai chat completions', () => {
  it('answers non-streaming with the default reply, stable for equal input', async () => {
    const first = await mock.openai.chat.completions.create({
      model: 'gpt-test',
      messages: user('ping'),
    });
    const second = await mock.openai.chat.completions.create({
      model: 'gpt-test',
      messages: user('ping'),
    });
    const content = first.choices[0]?.message.content ?? '';
    expect(content).toContain('ping');
    expect(second.choices[0]?.message.content).toBe(content);
    expect(first.choices[0]?.finish_reason).toBe('stop');
    expect(first.model).toBe('gpt-test');
    expect(first.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(first.usage?.total_tokens).toBe(
      (first.usage?.prompt_tokens ?? 0) + (first.usage?.completion_tokens ?? 0),
    );
  });

  it('answers non-streaming tool calls', async () => {
    mock.provider.enqueue({
      type: 'ok',
      toolCalls: [{ id: 'call_1', name: 'lookup', input: { q: 'x' } }],
    });
    const completion = await mock.openai.chat.completions.create({
      model: 'gpt-test',
      messages: user('find x'),
    });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
    ]);
  });

  it('streams text, tool_calls deltas, finish_reason and a usage chunk', async () => {
    mock.provider.enqueue({
      type: 'ok',
      text: 'Calling two tools now.',
      toolCalls: [
        { name: 'a', input: { n: 1 } },
        { name: 'b', input: { n: 2 } },
      ],
      usage: { inputTokens: 11, outputTokens: 7 },
    });
    const stream = mock.openai.chat.completions.stream({
      model: 'gpt-test',
      messages: user('go'),
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    stream.on('content.delta', ({ delta }) => deltas.push(delta));
    const completion = await stream.finalChatCompletion();
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Calling two tools now.');
    const message = completion.choices[0]?.message;
    expect(message?.content).toBe('Calling two tools now.');
    expect(message?.tool_calls?.map((call) => call.type === 'function' && call.function)).toEqual([
      { name: 'a', arguments: '{"n":1}' },
      { name: 'b', arguments: '{"n":2}' },
    ]);
    expect(message?.tool_calls?.map((call) => call.id)).toEqual(['call_mock_1', 'call_mock_2']);
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
  });

  it('ends a complete stream with data: [DONE] on the wire', async () => {
    const response = await fetch(`${mock.provider.openaiBaseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: 'gpt-test', messages: user('hi'), stream: true }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await response.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(events.slice(0, -1).every((event) => event.startsWith('data: {'))).toBe(true);
  });

  it('sends no usage chunk unless stream_options.include_usage is set', async () => {
    const stream = await mock.openai.chat.completions.create({
      model: 'gpt-test',
      messages: user('hi'),
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((chunk) => chunk.usage === undefined)).toBe(true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });
});
