import { describe, expect, it } from 'vitest';
import { collect, fromArray } from '../test/collect-events';
import { fromOpenAIChatStream, type OpenAIChatChunk } from './from-openai-chat-stream';
import { IncompleteStreamError, MalformedResponseError } from './transport-error';

const delta = (
  value: NonNullable<OpenAIChatChunk['choices'][number]['delta']>,
): OpenAIChatChunk => ({
  choices: [{ delta: value, finish_reason: null }],
});
const finish = (reason: string): OpenAIChatChunk => ({
  choices: [{ delta: {}, finish_reason: reason }],
});

describe('fromOpenAIChatStream', () => {
  it('reports prompt_tokens as inputTokens and cached_tokens as cacheReadTokens', async () => {
    // The last chunk of a stream sent with stream_options.include_usage, as the wire has it.
    const usageChunk = {
      id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
      object: 'chat.completion.chunk',
      created: 1741570283,
      model: 'gpt-4o-2024-08-06',
      service_tier: 'default',
      system_fingerprint: 'fp_eb9dce56a8',
      choices: [],
      usage: {
        prompt_tokens: 2006,
        completion_tokens: 300,
        total_tokens: 2306,
        prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: 0,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
    };
    const events = await collect(
      fromOpenAIChatStream(
        fromArray<OpenAIChatChunk>([delta({ content: 'Hi' }), finish('stop'), usageChunk]),
      ),
    );
    expect(events.at(-2)).toEqual({
      type: 'usage',
      inputTokens: 2006,
      outputTokens: 300,
      cacheReadTokens: 1920,
    });
  });

  it('leaves out cacheReadTokens when the server sent no prompt_tokens_details', async () => {
    const events = await collect(
      fromOpenAIChatStream(
        fromArray<OpenAIChatChunk>([
          finish('stop'),
          {
            choices: [],
            usage: { prompt_tokens: 7, completion_tokens: 2, prompt_tokens_details: null },
          },
        ]),
      ),
    );
    expect(events.at(-2)).toEqual({ type: 'usage', inputTokens: 7, outputTokens: 2 });
  });

  it('streams text, then usage, then finish', async () => {
    const events = await collect(
      fromOpenAIChatStream(
        fromArray([
          delta({ content: '' }),
          delta({ content: 'Hel' }),
          delta({ content: 'lo' }),
          finish('stop'),
          { choices: [], usage: { prompt_tokens: 12, completion_tokens: 3 } },
        ]),
      ),
    );
    expect(events).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'usage', inputTokens: 12, outputTokens: 3 },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('assembles interleaved tool-call argument deltas by index', async () => {
    const events = await collect(
      fromOpenAIChatStream(
        fromArray([
          delta({
            tool_calls: [{ index: 0, id: 'call_a', function: { name: 'f', arguments: '' } }],
          }),
          delta({
            tool_calls: [{ index: 1, id: 'call_b', function: { name: 'g', arguments: '{"y"' } }],
          }),
          delta({ tool_calls: [{ index: 0, function: { arguments: '{"x":' } }] }),
          delta({ tool_calls: [{ index: 1, function: { arguments: ':[1,2]}' } }] }),
          delta({ tool_calls: [{ index: 0, function: { arguments: '"1"}' } }] }),
          finish('tool_calls'),
        ]),
      ),
    );
    expect(events).toEqual([
      { type: 'tool-call', id: 'call_a', name: 'f', input: { x: '1' } },
      { type: 'tool-call', id: 'call_b', name: 'g', input: { y: [1, 2] } },
      { type: 'finish', reason: 'tool-calls' },
    ]);
  });

  it.each([
    ['length', 'length'],
    ['content_filter', 'content-filter'],
    ['function_call', 'tool-calls'],
    ['something_new', 'other'],
  ])('maps finish_reason %s to %s', async (wire, mapped) => {
    const events = await collect(fromOpenAIChatStream(fromArray([finish(wire)])));
    expect(events).toEqual([{ type: 'finish', reason: mapped }]);
  });

  it('throws IncompleteStreamError when the stream ends without finish_reason', async () => {
    await expect(
      collect(fromOpenAIChatStream(fromArray([delta({ content: 'partial' })]))),
    ).rejects.toBeInstanceOf(IncompleteStreamError);
  });

  it('throws MalformedResponseError for arguments that are not JSON', async () => {
    await expect(
      collect(
        fromOpenAIChatStream(
          fromArray([
            delta({
              tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '{nope' } }],
            }),
            finish('tool_calls'),
          ]),
        ),
      ),
    ).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it('throws MalformedResponseError for a tool call without an index, never merging calls', async () => {
    // Two calls with no index: read as one index they would merge into a single call.
    const noIndex = (id: string, args: string) =>
      ({ tool_calls: [{ id, function: { name: 'f', arguments: args } }] }) as never;
    const run = collect(
      fromOpenAIChatStream(
        fromArray([
          delta(noIndex('call_a', '{}')),
          delta(noIndex('call_b', '{}')),
          finish('tool_calls'),
        ]),
      ),
    );
    await expect(run).rejects.toBeInstanceOf(MalformedResponseError);
    await expect(run).rejects.toThrow(/index/);
  });

  it('throws MalformedResponseError for a tool call that never gets an id', async () => {
    const run = collect(
      fromOpenAIChatStream(
        fromArray([
          delta({ tool_calls: [{ index: 0, function: { name: 'f', arguments: '{"x":1}' } }] }),
          finish('tool_calls'),
        ]),
      ),
    );
    await expect(run).rejects.toBeInstanceOf(MalformedResponseError);
    await expect(run).rejects.toThrow(/id/);
  });

  it('surfaces delta.refusal as one refusal event and finishes as content-filter', async () => {
    const events = await collect(
      fromOpenAIChatStream(
        fromArray([
          delta({ content: null, refusal: '' } as never),
          delta({ refusal: "I can't " } as never),
          delta({ refusal: 'help with that.' } as never),
          finish('stop'),
        ]),
      ),
    );
    expect(events).toEqual([
      { type: 'refusal', text: "I can't help with that." },
      { type: 'finish', reason: 'content-filter' },
    ]);
  });
});
