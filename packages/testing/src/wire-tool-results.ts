import type { ToolCall } from '@keel/spec';
import { textOfContent } from './default-mock-reply';
import type { MockApi } from './mock-provider-types';

/** A tool result closing a request, paired with the call it answers (when found). */
export interface WireToolResult {
  call: ToolCall;
  content: string;
  isError: boolean;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function parseArguments(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The names of the function tools a request offers, in its api's shape. */
export function offeredToolNames(api: MockApi, body: unknown): string[] {
  const tools = list(isObject(body) ? body['tools'] : undefined);
  return tools.flatMap((tool) => {
    // Chat Completions nests the function; Anthropic and Responses name the tool at the top.
    const named = api === 'openai-chat' ? tool['function'] : tool;
    if (api === 'openai-responses' && tool['type'] !== 'function') return [];
    return isObject(named) && typeof named['name'] === 'string' ? [named['name']] : [];
  });
}

/** The calls an earlier message made, by id, so results can be paired with them. */
function callsById(api: MockApi, messages: Json[]): Map<string, ToolCall> {
  const calls = new Map<string, ToolCall>();
  const add = (id: unknown, name: unknown, input: Record<string, unknown>) => {
    if (typeof id === 'string' && typeof name === 'string') calls.set(id, { id, name, input });
  };
  for (const message of messages) {
    if (api === 'anthropic-messages' && message['role'] === 'assistant') {
      for (const block of list(message['content'])) {
        if (block['type'] !== 'tool_use') continue;
        add(block['id'], block['name'], isObject(block['input']) ? block['input'] : {});
      }
    } else if (api === 'openai-chat' && message['role'] === 'assistant') {
      for (const call of list(message['tool_calls'])) {
        const fn = isObject(call['function']) ? call['function'] : {};
        add(call['id'], fn['name'], parseArguments(fn['arguments']));
      }
    } else if (api === 'openai-responses' && message['type'] === 'function_call') {
      add(message['call_id'], message['name'], parseArguments(message['arguments']));
    }
  }
  return calls;
}

interface RawResult {
  id: unknown;
  content: unknown;
  isError: boolean;
}

/** The results at the end of the request: Anthropic's last user message, or trailing items. */
function trailingResults(api: MockApi, messages: Json[]): RawResult[] {
  if (api === 'anthropic-messages') {
    const last = messages.at(-1);
    if (last?.['role'] !== 'user') return [];
    return list(last['content'])
      .filter((block) => block['type'] === 'tool_result')
      .map((block) => ({
        id: block['tool_use_id'],
        content: block['content'],
        isError: block['is_error'] === true,
      }));
  }
  const results: RawResult[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    const isResult =
      api === 'openai-chat'
        ? message['role'] === 'tool'
        : message['type'] === 'function_call_output';
    if (!isResult) break;
    const id = api === 'openai-chat' ? message['tool_call_id'] : message['call_id'];
    const content = api === 'openai-chat' ? message['content'] : message['output'];
    results.unshift({ id, content, isError: false });
  }
  return results;
}

/**
 * The tool results a request ends with (`[]` when its last message is not a tool result), each
 * with the call it answers: Anthropic `tool_result` blocks answering `tool_use`, Chat `tool`
 * messages answering `tool_calls`, Responses `function_call_output` items answering
 * `function_call` items. A result whose call is missing keeps its id and an unknown name.
 */
export function trailingToolResults(api: MockApi, messages: unknown): WireToolResult[] {
  const items = list(messages);
  const calls = callsById(api, items);
  return trailingResults(api, items).map((result) => {
    const id = typeof result.id === 'string' ? result.id : '';
    return {
      call: calls.get(id) ?? { id, name: 'unknown', input: {} },
      content: textOfContent(result.content),
      isError: result.isError,
    };
  });
}
