import type { FinishReason, ModelEvent } from '@keel/spec';
import { parseToolInput } from './parse-tool-input';
import { IncompleteStreamError, MalformedResponseError } from './transport-error';

interface ResponsesUsage {
  input_tokens: number;
  output_tokens: number;
  /** `cached_tokens`: of `input_tokens`, those read from the prompt cache. */
  input_tokens_details?: { cached_tokens?: number | null } | null;
}

interface ResponsesItem {
  type: string;
  id?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  /** A message item's parts: `output_text`, or `refusal` when the model declines. */
  content?: ReadonlyArray<{ type: string; refusal?: string }>;
}

interface ResponsesSnapshot {
  usage?: ResponsesUsage | null;
  incomplete_details?: { reason?: string | null } | null;
  error?: { code?: string | null; message?: string } | null;
}

/** The fields of a Responses stream event the transport reads (the SDK's event type fits). */
export type OpenAIResponsesEvent =
  | { type: 'response.output_text.delta'; delta: string }
  | {
      type: 'response.refusal.delta';
      output_index: number;
      content_index: number;
      delta: string;
    }
  | {
      type: 'response.refusal.done';
      output_index: number;
      content_index: number;
      refusal: string;
    }
  | { type: 'response.output_item.added'; output_index: number; item: ResponsesItem }
  | { type: 'response.function_call_arguments.delta'; output_index: number; delta: string }
  | { type: 'response.output_item.done'; output_index: number; item: ResponsesItem }
  | { type: 'response.completed'; response: ResponsesSnapshot }
  | { type: 'response.incomplete'; response: ResponsesSnapshot }
  | { type: 'response.failed'; response: ResponsesSnapshot }
  | { type: 'error'; code?: string | null; message: string; param?: string | null }
  | { type: string };

/** What an in-stream failure carries; the transport turns it into the SDK's `APIError`. */
export interface ResponsesStreamFailure {
  type?: string;
  code?: string | null;
  message: string;
  param?: string | null;
}

export interface FromOpenAIResponsesStreamOptions {
  /** Builds the error thrown for an `error` or `response.failed` event. */
  createStreamError(failure: ResponsesStreamFailure): Error;
}

export function mapIncompleteReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'max_output_tokens':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}

const OUTPUT_EVENTS = new Set([
  'response.output_item.added',
  'response.output_text.delta',
  'response.refusal.delta',
  'response.function_call_arguments.delta',
  'response.completed',
  'response.incomplete',
]);

/** Model output: an output item, its deltas, or the end (not `response.created` / `in_progress`). */
export function isOpenAIResponsesOutputEvent(event: OpenAIResponsesEvent): boolean {
  return OUTPUT_EVENTS.has(event.type);
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

function is<T extends OpenAIResponsesEvent['type']>(
  event: OpenAIResponsesEvent,
  type: T,
): event is Extract<OpenAIResponsesEvent, { type: T }> {
  return event.type === type;
}

/**
 * A finished response's usage and finish events. Declared once, not per stream: on Node 20 a
 * generator function made per call costs its own prototype object and map (microseconds).
 */
function* finish(snapshot: ResponsesSnapshot, reason: FinishReason): Generator<ModelEvent> {
  if (snapshot.usage) {
    const cached = snapshot.usage.input_tokens_details?.cached_tokens;
    yield {
      type: 'usage',
      inputTokens: snapshot.usage.input_tokens,
      outputTokens: snapshot.usage.output_tokens,
      ...(typeof cached === 'number' ? { cacheReadTokens: cached } : {}),
    };
  }
  yield { type: 'finish', reason };
}

/**
 * Turns Responses stream events into transport events. Function-call argument deltas are
 * assembled into one `tool-call` per item (its `call_id` is the id; an item without a `call_id` or a
 * name, or argument deltas for an item not announced as a function call, throw
 * `MalformedResponseError`). A refusal (its `response.refusal.*` events, or a `refusal` part of a
 * finished message item) becomes one `refusal` event per part and the finish reason
 * `content-filter`. `error` / `response.failed`
 * throw; a stream without `response.completed` or `response.incomplete` throws
 * `IncompleteStreamError`.
 */
export async function* fromOpenAIResponsesStream(
  events: AsyncIterable<OpenAIResponsesEvent>,
  options: FromOpenAIResponsesStreamOptions,
): AsyncGenerator<ModelEvent> {
  const pending = new Map<number, PendingCall>();
  let toolCalls = 0;
  let refused = false;
  /** Refusal parts by `output_index:content_index`: text so far, and whether it was surfaced. */
  const refusals = new Map<string, { text: string; surfaced: boolean }>();
  const refusalPart = (outputIndex: number, contentIndex: number) => {
    const key = `${outputIndex}:${contentIndex}`;
    const part = refusals.get(key) ?? { text: '', surfaced: false };
    refusals.set(key, part);
    return part;
  };
  function* surface(part: { text: string; surfaced: boolean }): Generator<ModelEvent> {
    refused = true;
    if (part.surfaced || part.text === '') return;
    part.surfaced = true;
    yield { type: 'refusal', text: part.text };
  }

  for await (const event of events) {
    if (is(event, 'response.output_text.delta')) {
      if (event.delta) yield { type: 'text-delta', text: event.delta };
    } else if (is(event, 'response.refusal.delta')) {
      refused = true;
      refusalPart(event.output_index, event.content_index).text += event.delta;
    } else if (is(event, 'response.refusal.done')) {
      const part = refusalPart(event.output_index, event.content_index);
      if (event.refusal) part.text = event.refusal;
      yield* surface(part);
    } else if (is(event, 'response.output_item.added')) {
      if (event.item.type === 'function_call') {
        pending.set(event.output_index, {
          id: event.item.call_id ?? '',
          name: event.item.name ?? '',
          arguments: event.item.arguments ?? '',
        });
      }
    } else if (is(event, 'response.function_call_arguments.delta')) {
      const call = pending.get(event.output_index);
      if (call === undefined) {
        throw new MalformedResponseError({
          message: `The Responses stream sent function-call arguments for output ${String(event.output_index)}, which is not a function call it announced.`,
        });
      }
      call.arguments += event.delta;
    } else if (is(event, 'response.output_item.done')) {
      if (event.item.type === 'message') {
        // A server that sends the refusal only as a part of the finished item is read here too.
        for (const [index, content] of (event.item.content ?? []).entries()) {
          if (content.type !== 'refusal') continue;
          const part = refusalPart(event.output_index, index);
          if (!part.surfaced && content.refusal) part.text = content.refusal;
          yield* surface(part);
        }
      }
      if (event.item.type !== 'function_call') continue;
      const call = pending.get(event.output_index);
      pending.delete(event.output_index);
      const id = event.item.call_id || call?.id;
      const name = event.item.name || call?.name;
      const args = event.item.arguments ?? call?.arguments ?? '';
      if (!id || !name) {
        throw new MalformedResponseError({
          message: `The Responses stream sent a function call without ${id ? 'a name' : 'a call_id'} (output ${String(event.output_index)}).`,
        });
      }
      toolCalls += 1;
      yield { type: 'tool-call', id, name, input: parseToolInput(args, name, id) };
    } else if (is(event, 'response.completed')) {
      for (const part of refusals.values()) yield* surface(part);
      const reason: FinishReason = refused
        ? 'content-filter'
        : toolCalls > 0
          ? 'tool-calls'
          : 'stop';
      yield* finish(event.response, reason);
      return;
    } else if (is(event, 'response.incomplete')) {
      yield* finish(event.response, mapIncompleteReason(event.response.incomplete_details?.reason));
      return;
    } else if (is(event, 'response.failed')) {
      const error = event.response.error;
      throw options.createStreamError({
        ...(error?.code == null ? {} : { type: error.code, code: error.code }),
        message: error?.message ?? 'The response failed.',
      });
    } else if (is(event, 'error')) {
      throw options.createStreamError({
        ...(event.code == null ? {} : { type: event.code, code: event.code }),
        message: event.message,
        param: event.param ?? null,
      });
    }
  }
  throw new IncompleteStreamError({
    message: 'The Responses stream ended without response.completed.',
  });
}
