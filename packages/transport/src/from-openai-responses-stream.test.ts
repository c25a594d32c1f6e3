import { classifyError } from '@keel/error-classification';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { collect, fromArray } from '../test/collect-events';
import {
  fromOpenAIResponsesStream,
  type OpenAIResponsesEvent,
  type ResponsesStreamFailure,
} from './from-openai-responses-stream';
import { responsesStreamError } from './responses-stream-error';
import { IncompleteStreamError, MalformedResponseError } from './transport-error';

class FakeStreamError extends Error {
  constructor(readonly failure: ResponsesStreamFailure) {
    super(failure.message);
  }
}
const options = {
  createStreamError: (failure: ResponsesStreamFailure) => new FakeStreamError(failure),
};
const usage = { input_tokens: 20, output_tokens: 5 };

describe('fromOpenAIResponsesStream', () => {
  it('reports input_tokens_details.cached_tokens as cacheReadTokens', async () => {
    // response.completed's usage, as the wire has it.
    const wireUsage = {
      input_tokens: 2150,
      input_tokens_details: { cached_tokens: 2048 },
      output_tokens: 36,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 2186,
    };
    const events = await collect(
      fromOpenAIResponsesStream(
        fromArray<OpenAIResponsesEvent>([
          { type: 'response.output_text.delta', delta: 'Hi' },
          { type: 'response.completed', response: { usage: wireUsage } },
        ]),
        options,
      ),
    );
    expect(events.at(-2)).toEqual({
      type: 'usage',
      inputTokens: 2150,
      outputTokens: 36,
      cacheReadTokens: 2048,
    });
  });

  it('streams text, usage and finish from response.completed', async () => {
    const events = await collect(
      fromOpenAIResponsesStream(
        fromArray<OpenAIResponsesEvent>([
          { type: 'response.created' },
          { type: 'response.output_item.added', output_index: 0, item: { type: 'message' } },
          { type: 'response.output_text.delta', delta: 'Hi ' },
          { type: 'response.output_text.delta', delta: 'there' },
          { type: 'response.output_item.done', output_index: 0, item: { type: 'message' } },
          { type: 'response.completed', response: { usage } },
        ]),
        options,
      ),
    );
    expect(events).toEqual([
      { type: 'text-delta', text: 'Hi ' },
      { type: 'text-delta', text: 'there' },
      { type: 'usage', inputTokens: 20, outputTokens: 5 },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('assembles function-call argument deltas and keeps call_id as the id', async () => {
    const events = await collect(
      fromOpenAIResponsesStream(
        fromArray<OpenAIResponsesEvent>([
          {
            type: 'response.output_item.added',
            output_index: 1,
            item: {
              type: 'function_call',
              id: 'fc_1',
              call_id: 'call_9',
              name: 'lookup',
              arguments: '',
            },
          },
          { type: 'response.function_call_arguments.delta', output_index: 1, delta: '{"q":' },
          { type: 'response.function_call_arguments.delta', output_index: 1, delta: '"keel"}' },
          { type: 'response.output_item.done', output_index: 1, item: { type: 'function_call' } },
          { type: 'response.completed', response: { usage: null } },
        ]),
        options,
      ),
    );
    expect(events).toEqual([
      { type: 'tool-call', id: 'call_9', name: 'lookup', input: { q: 'keel' } },
      { type: 'finish', reason: 'tool-calls' },
    ]);
  });

  it('maps response.incomplete to its reason', async () => {
    const events = await collect(
      fromOpenAIResponsesStream(
        fromArray<OpenAIResponsesEvent>([
          {
            type: 'response.incomplete',
            response: { usage, incomplete_details: { reason: 'max_output_tokens' } },
          },
        ]),
        options,
      ),
    );
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'length' });
  });

  it('throws the stream error built from an error event', async () => {
    const run = collect(
      fromOpenAIResponsesStream(
        fromArray<OpenAIResponsesEvent>([
          { type: 'response.output_text.delta', delta: 'x' },
          { type: 'error', code: 'server_error', message: 'boom', param: null },
        ]),
        options,
      ),
    );
    await expect(run).rejects.toMatchObject({
      failure: { type: 'server_error', code: 'server_error', message: 'boom' },
    });
  });

  it('throws the stream error built from response.failed', async () => {
    const run = collect(
      fromOpenAIResponsesStream(
        fromArray<OpenAIResponsesEvent>([
          {
            type: 'response.failed',
            response: { error: { code: 'rate_limit_exceeded', message: 'slow' } },
          },
        ]),
        options,
      ),
    );
    await expect(run).rejects.toBeInstanceOf(FakeStreamError);
  });

  it('throws IncompleteStreamError without response.completed', async () => {
    const run = collect(
      fromOpenAIResponsesStream(
        fromArray<OpenAIResponsesEvent>([{ type: 'response.output_text.delta', delta: 'x' }]),
        options,
      ),
    );
    await expect(run).rejects.toBeInstanceOf(IncompleteStreamError);
  });
});

describe('fromOpenAIResponsesStream with the SDK error the transport throws', () => {
  const withSdkErrors = {
    createStreamError: (failure: ResponsesStreamFailure) => responsesStreamError(OpenAI, failure),
  };

  it.each([
    [
      'an error event',
      { type: 'error', code: 'rate_limit_exceeded', message: 'slow down' },
      'rate_limit',
    ],
    [
      'an overloaded error event',
      { type: 'error', code: 'overloaded_error', message: 'busy' },
      'overloaded',
    ],
    [
      'response.failed',
      { type: 'response.failed', response: { error: { code: 'server_error', message: 'failed' } } },
      'server_error',
    ],
    [
      'response.failed for a too long prompt',
      {
        type: 'response.failed',
        response: { error: { code: 'context_length_exceeded', message: 'too long' } },
      },
      'context_overflow',
    ],
  ] as const)(
    '%s is thrown as an APIError classifyError understands',
    async (_name, event, kind) => {
      const run = collect(
        fromOpenAIResponsesStream(
          fromArray<OpenAIResponsesEvent>([
            { type: 'response.output_text.delta', delta: 'x' },
            event,
          ]),
          withSdkErrors,
        ),
      );
      const error = await run.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(classifyError(error).kind).toBe(kind);
    },
  );

  it('throws MalformedResponseError for a function call without a call_id', async () => {
    const run = collect(
      fromOpenAIResponsesStream(
        fromArray<OpenAIResponsesEvent>([
          {
            type: 'response.output_item.added',
            output_index: 0,
            item: { type: 'function_call', name: 'lookup', arguments: '' },
          },
          { type: 'response.function_call_arguments.delta', output_index: 0, delta: '{}' },
          {
            type: 'response.output_item.done',
            output_index: 0,
            item: { type: 'function_call', name: 'lookup', arguments: '{}' },
          },
          { type: 'response.completed', response: { usage: null } },
        ]),
        options,
      ),
    );
    await expect(run).rejects.toBeInstanceOf(MalformedResponseError);
    await expect(run).rejects.toThrow(/call_id/);
  });

  it('throws MalformedResponseError for argument deltas of an item that was never added', async () => {
    const run = collect(
      fromOpenAIResponsesStream(
        fromArray<OpenAIResponsesEvent>([
          { type: 'response.function_call_arguments.delta', output_index: 3, delta: '{"q":1}' },
          { type: 'response.completed', response: { usage: null } },
        ]),
        options,
      ),
    );
    await expect(run).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it('surfaces a refusal from its refusal events, once, and finishes as content-filter', async () => {
    const at = { item_id: 'msg_1', output_index: 0, content_index: 0 };
    const refusalItem = {
      type: 'message',
      content: [{ type: 'refusal', refusal: "I can't help with that." }],
    };
    const events = await collect(
      fromOpenAIResponsesStream(
        fromArray<OpenAIResponsesEvent>([
          { type: 'response.output_item.added', output_index: 0, item: { type: 'message' } },
          { type: 'response.refusal.delta', ...at, delta: "I can't " },
          { type: 'response.refusal.delta', ...at, delta: 'help with that.' },
          { type: 'response.refusal.done', ...at, refusal: "I can't help with that." },
          { type: 'response.output_item.done', output_index: 0, item: refusalItem },
          { type: 'response.completed', response: { usage: null } },
        ]),
        options,
      ),
    );
    expect(events).toEqual([
      { type: 'refusal', text: "I can't help with that." },
      { type: 'finish', reason: 'content-filter' },
    ]);
  });

  it('surfaces a refusal content part that came without refusal events', async () => {
    const events = await collect(
      fromOpenAIResponsesStream(
        fromArray<OpenAIResponsesEvent>([
          {
            type: 'response.output_item.done',
            output_index: 0,
            item: { type: 'message', content: [{ type: 'refusal', refusal: 'No.' }] },
          },
          { type: 'response.completed', response: { usage: null } },
        ]),
        options,
      ),
    );
    expect(events).toEqual([
      { type: 'refusal', text: 'No.' },
      { type: 'finish', reason: 'content-filter' },
    ]);
  });
});
