import { describe, expect, it } from 'vitest';
import { useMockProvider } from '../test/use-mock-provider';

const mock = useMockProvider();

describe('openai responses', () => {
  it('answers non-streaming with output_text and usage', async () => {
    const response = await mock.openai.responses.create({
      model: 'gpt-test',
      input: 'tell me',
      instructions: 'be brief',
    });
    expect(response.status).toBe('completed');
    expect(response.output_text).toContain('tell me');
    expect(response.usage?.input_tokens).toBeGreaterThan(0);
    expect(mock.provider.requests[0]).toMatchObject({
      api: 'openai-responses',
      system: 'be brief',
      messages: 'tell me',
    });
  });

  it('streams text deltas and function calls, ending with response.completed', async () => {
    mock.provider.enqueue({
      type: 'ok',
      text: 'Looking it up.',
      toolCalls: [{ name: 'search', input: { query: 'keel' } }],
      usage: { inputTokens: 5, outputTokens: 9 },
    });
    const stream = mock.openai.responses.stream({
      model: 'gpt-test',
      input: [{ role: 'user', content: 'search keel' }],
    });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const response = await stream.finalResponse();
    expect(deltas.join('')).toBe('Looking it up.');
    expect(deltas.length).toBeGreaterThan(1);
    expect(response.output_text).toBe('Looking it up.');
    const call = response.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({
      name: 'search',
      arguments: '{"query":"keel"}',
      call_id: 'call_mock_1',
    });
    expect(response.usage).toMatchObject({ input_tokens: 5, output_tokens: 9, total_tokens: 14 });
  });

  it('emits the documented event sequence', async () => {
    mock.provider.enqueue({ type: 'ok', text: 'abc', toolCalls: [{ name: 'f', input: {} }] });
    const stream = await mock.openai.responses.create({
      model: 'gpt-test',
      input: 'x',
      stream: true,
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });
});

describe('openai responses faults', () => {
  it('answers a non-streaming function call', async () => {
    mock.provider.enqueue({
      type: 'ok',
      toolCalls: [{ id: 'call_7', name: 'f', input: { a: 1 } }],
    });
    const response = await mock.openai.responses.create({ model: 'gpt-test', input: 'x' });
    expect(response.output).toEqual([
      {
        id: 'fc_mock_1_0',
        type: 'function_call',
        status: 'completed',
        arguments: '{"a":1}',
        call_id: 'call_7',
        name: 'f',
      },
    ]);
    expect(response.output_text).toBe('');
  });

  it('truncated-stream ends without response.completed; reset-after-chunks fails the stream', async () => {
    mock.provider.enqueue(
      { type: 'truncated-stream', chunks: 2 },
      { type: 'reset-after-chunks', chunks: 1 },
    );
    const truncated = await mock.openai.responses.create({
      model: 'gpt-test',
      input: 'x',
      stream: true,
    });
    const types: string[] = [];
    for await (const event of truncated) types.push(event.type);
    expect(types.filter((type) => type === 'response.output_text.delta')).toHaveLength(2);
    expect(types).not.toContain('response.completed');

    const reset = await mock.openai.responses.create({
      model: 'gpt-test',
      input: 'x',
      stream: true,
    });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of reset) seen.push(event.type);
      })(),
    ).rejects.toBeInstanceOf(Error);
    expect(seen.filter((type) => type === 'response.output_text.delta')).toHaveLength(1);
    expect(seen).not.toContain('response.completed');
  });
});
