import type { FinishReason, ModelEvent } from '@keel/spec';
import { parseToolInput } from './parse-tool-input';
import { IncompleteStreamError, MalformedResponseError } from './transport-error';

/** The fields of a Chat Completions stream chunk the transport reads (the SDK's chunk type fits). */
export interface OpenAIChatChunk {
  choices: Array<{
    delta?: {
      content?: string | null;
      /** The model declines: its refusal text, in pieces like `content`. */
      refusal?: string | null;
      tool_calls?: Array<{
        /** Required on the wire; a chunk without it is refused (`MalformedResponseError`). */
        index?: number;
        id?: string;
        function?: { name?: string; arguments?: string };
      }>;
    };
    finish_reason?: string | null;
  }>;
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    /** `cached_tokens`: of `prompt_tokens`, those read from the prompt cache. */
    prompt_tokens_details?: { cached_tokens?: number | null } | null;
  } | null;
}

export function mapOpenAIChatFinishReason(reason: string): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** Model output: text, tool-call deltas or a finish reason (not a role-only or usage chunk). */
export function isOpenAIChatOutputChunk(chunk: OpenAIChatChunk): boolean {
  const choice = chunk.choices[0];
  if (choice === undefined) return false;
  return (
    Boolean(choice.delta?.content) ||
    Boolean(choice.delta?.refusal) ||
    (choice.delta?.tool_calls?.length ?? 0) > 0 ||
    Boolean(choice.finish_reason)
  );
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * The tool calls gathered so far, in index order (the map emptied). Declared once, not per stream:
 * on Node 20 each new generator function made per call costs its own prototype object and map.
 */
function* flushCalls(pending: Map<number, PendingCall>): Generator<ModelEvent> {
  const ordered = [...pending.entries()].sort(([a], [b]) => a - b);
  pending.clear();
  for (const [index, call] of ordered) {
    if (call.id === '' || call.name === '') {
      throw new MalformedResponseError({
        message: `The Chat Completions stream sent tool call ${index} without ${call.id === '' ? 'an id' : 'a function name'}.`,
      });
    }
    yield {
      type: 'tool-call',
      id: call.id,
      name: call.name,
      input: parseToolInput(call.arguments, call.name, call.id),
    };
  }
}

/**
 * Turns Chat Completions chunks into model events. Tool-call argument deltas are assembled by
 * `index` into one `tool-call` event each; a delta without an index, or a call that never gets an
 * id or a name, throws `MalformedResponseError`. A refusal (`delta.refusal`) becomes one
 * `refusal` event and the finish reason `content-filter`. `usage` (with `cacheReadTokens` when the server sent `prompt_tokens_details.cached_tokens`) and `finish` come last. A stream without
 * a `finish_reason` is cut short and throws `IncompleteStreamError`.
 */
export async function* fromOpenAIChatStream(
  chunks: AsyncIterable<OpenAIChatChunk>,
): AsyncGenerator<ModelEvent> {
  const pending = new Map<number, PendingCall>();
  let finish: FinishReason | undefined;
  let usage: ModelEvent | undefined;
  let refusal = '';

  for await (const chunk of chunks) {
    if (chunk.usage) {
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens;
      usage = {
        type: 'usage',
        inputTokens: chunk.usage.prompt_tokens,
        outputTokens: chunk.usage.completion_tokens,
        ...(typeof cached === 'number' ? { cacheReadTokens: cached } : {}),
      };
    }
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    const delta = choice.delta;
    if (delta?.content) yield { type: 'text-delta', text: delta.content };
    if (delta?.refusal) refusal += delta.refusal;
    for (const part of delta?.tool_calls ?? []) {
      // Without its index a delta cannot be told apart from another call's: never guess.
      if (typeof part.index !== 'number' || !Number.isInteger(part.index) || part.index < 0) {
        throw new MalformedResponseError({
          message: 'The Chat Completions stream sent a tool call delta without an index.',
        });
      }
      const call = pending.get(part.index) ?? { id: '', name: '', arguments: '' };
      if (part.id) call.id = part.id;
      if (part.function?.name && call.name === '') call.name = part.function.name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
      pending.set(part.index, call);
    }
    if (choice.finish_reason) {
      finish = mapOpenAIChatFinishReason(choice.finish_reason);
      if (refusal !== '') {
        // OpenAI finishes a refusal with `stop`; it is the model declining, as on the Responses API.
        yield { type: 'refusal', text: refusal };
        refusal = '';
        finish = 'content-filter';
      }
      yield* flushCalls(pending);
    }
  }
  if (finish === undefined) {
    throw new IncompleteStreamError({
      message: 'The Chat Completions stream ended without a finish_reason.',
    });
  }
  if (usage !== undefined) yield usage;
  yield { type: 'finish', reason: finish };
}
