import type { FinishReason, ModelEvent } from '@keel/spec';
import { parseToolInput } from './parse-tool-input';
import { IncompleteStreamError, MalformedResponseError } from './transport-error';

export interface AnthropicUsage {
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens?: number | null;
}

/** The fields of a Messages stream event the transport reads (the SDK's event type fits). */
export type AnthropicMessagesEvent =
  | { type: 'message_start'; message: { usage: AnthropicUsage } }
  | {
      type: 'content_block_start';
      index: number;
      content_block: { type: string; id?: string; name?: string; input?: unknown; text?: string };
    }
  | {
      type: 'content_block_delta';
      index: number;
      delta: { type: string; text?: string; partial_json?: string };
    }
  | { type: 'content_block_stop'; index: number }
  | { type: 'message_delta'; delta: { stop_reason?: string | null }; usage?: AnthropicUsage }
  | { type: 'message_stop' }
  | { type: string };

export function mapAnthropicStopReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool-calls';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

interface PendingCall {
  id: string;
  name: string;
  json: string;
  initial: Record<string, unknown>;
}

/** Model output: a content block, its deltas, or the end (not `message_start` or `ping`). */
export function isAnthropicOutputEvent(event: AnthropicMessagesEvent): boolean {
  switch (event.type) {
    case 'content_block_start':
    case 'content_block_delta':
    case 'content_block_stop':
    case 'message_delta':
    case 'message_stop':
      return true;
    default:
      return false;
  }
}

function is<T extends AnthropicMessagesEvent['type']>(
  event: AnthropicMessagesEvent,
  type: T,
): event is Extract<AnthropicMessagesEvent, { type: T }> {
  return event.type === type;
}

/** The counts seen so far; `message_delta` repeats them cumulatively, each one only when it has it. */
interface UsageSoFar {
  uncached: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

function mergeUsage(seen: UsageSoFar, usage: AnthropicUsage | undefined): void {
  if (usage == null) return;
  if (usage.input_tokens != null) seen.uncached = usage.input_tokens;
  if (usage.output_tokens != null) seen.output = usage.output_tokens;
  if (usage.cache_read_input_tokens != null) seen.cacheRead = usage.cache_read_input_tokens;
  if (usage.cache_creation_input_tokens != null)
    seen.cacheWrite = usage.cache_creation_input_tokens;
}

/** Anthropic counts cache reads and writes apart from `input_tokens`; `inputTokens` adds them up. */
function usageEvent(seen: UsageSoFar): ModelEvent {
  return {
    type: 'usage',
    inputTokens: seen.uncached + (seen.cacheRead ?? 0) + (seen.cacheWrite ?? 0),
    outputTokens: seen.output,
    ...(seen.cacheRead !== undefined ? { cacheReadTokens: seen.cacheRead } : {}),
    ...(seen.cacheWrite !== undefined ? { cacheWriteTokens: seen.cacheWrite } : {}),
  };
}

/**
 * Turns Messages stream events into transport events. `input_json_delta`s are assembled into one
 * `tool-call` per block (a `tool_use` block without an id, a name or an index, or tool input for a
 * block that is not one, throws `MalformedResponseError`); `usage` (input includes cache reads and
 * writes, also given apart as `cacheReadTokens` / `cacheWriteTokens` when the stream sent them;
 * `message_start` counts updated by `message_delta`'s) and `finish` come at `message_stop`. A stream without `message_stop` throws `IncompleteStreamError`. (In-stream
 * `event: error` frames are thrown by the SDK before they reach this function.)
 */
export async function* fromAnthropicMessagesStream(
  events: AsyncIterable<AnthropicMessagesEvent>,
): AsyncGenerator<ModelEvent> {
  const pending = new Map<number, PendingCall>();
  const seen: UsageSoFar = { uncached: 0, output: 0 };
  let stopReason: string | null | undefined;

  for await (const event of events) {
    if (is(event, 'message_start')) {
      mergeUsage(seen, event.message.usage);
    } else if (is(event, 'content_block_start')) {
      const content = event.content_block;
      if (content.type === 'text' && content.text) {
        yield { type: 'text-delta', text: content.text };
      } else if (content.type === 'tool_use') {
        if (!content.id || !content.name || typeof event.index !== 'number') {
          const missing = !content.id ? 'an id' : !content.name ? 'a name' : 'an index';
          throw new MalformedResponseError({
            message: `The Messages stream sent a tool_use block without ${missing}.`,
          });
        }
        const initial =
          typeof content.input === 'object' && content.input !== null
            ? (content.input as Record<string, unknown>)
            : {};
        pending.set(event.index, {
          id: content.id,
          name: content.name,
          json: '',
          initial,
        });
      }
    } else if (is(event, 'content_block_delta')) {
      if (event.delta.type === 'text_delta' && event.delta.text) {
        yield { type: 'text-delta', text: event.delta.text };
      } else if (event.delta.type === 'input_json_delta') {
        const call = pending.get(event.index);
        if (call === undefined) {
          throw new MalformedResponseError({
            message: `The Messages stream sent tool input for block ${String(event.index)}, which is not a tool_use block it started.`,
          });
        }
        call.json += event.delta.partial_json ?? '';
      }
    } else if (is(event, 'content_block_stop')) {
      const call = pending.get(event.index);
      if (call === undefined) continue;
      pending.delete(event.index);
      const parsed =
        call.json === '' ? call.initial : parseToolInput(call.json, call.name, call.id);
      yield { type: 'tool-call', id: call.id, name: call.name, input: parsed };
    } else if (is(event, 'message_delta')) {
      if (event.delta.stop_reason != null) stopReason = event.delta.stop_reason;
      mergeUsage(seen, event.usage);
    } else if (is(event, 'message_stop')) {
      yield usageEvent(seen);
      yield { type: 'finish', reason: mapAnthropicStopReason(stopReason) };
      return;
    }
  }
  throw new IncompleteStreamError({
    message: 'The Messages stream ended without message_stop.',
  });
}
