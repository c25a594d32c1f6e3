import type { MockApi } from './mock-provider-types';

/** Why a provider refuses a request's tool blocks: its 400 message and, for OpenAI, `param`. */
export interface ToolPairingProblem {
  message: string;
  param: string | null;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function ids(items: Json[], key: string): string[] {
  return items.flatMap((item) => (typeof item[key] === 'string' ? [item[key] as string] : []));
}

/**
 * Anthropic: every `tool_use` block of an assistant message is answered by a `tool_result` block
 * of the very next (user) message, and every `tool_result` answers a `tool_use` of the message
 * just before it.
 */
function anthropicProblem(messages: Json[]): ToolPairingProblem | undefined {
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    const blocks = list(message['content']);
    const previous = index > 0 ? messages[index - 1] : undefined;
    if (message['role'] === 'user') {
      const offered = new Set(
        previous?.['role'] === 'assistant'
          ? ids(
              list(previous['content']).filter((block) => block['type'] === 'tool_use'),
              'id',
            )
          : [],
      );
      const resultIndex = blocks.findIndex(
        (block) =>
          block['type'] === 'tool_result' && !offered.has(String(block['tool_use_id'] ?? '')),
      );
      if (resultIndex >= 0) {
        return {
          message: `messages.${index}.content.${resultIndex}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(blocks[resultIndex]!['tool_use_id'])}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          param: null,
        };
      }
    }
    if (message['role'] !== 'assistant') continue;
    const uses = ids(
      blocks.filter((block) => block['type'] === 'tool_use'),
      'id',
    );
    if (uses.length === 0) continue;
    const next = messages[index + 1];
    const answered = new Set(
      next?.['role'] === 'user'
        ? ids(
            list(next['content']).filter((block) => block['type'] === 'tool_result'),
            'tool_use_id',
          )
        : [],
    );
    const missing = uses.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      return {
        message: `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        param: null,
      };
    }
  }
  return undefined;
}

/**
 * Chat Completions: an assistant message with `tool_calls` is followed by one `tool` message per
 * call id, and a `tool` message answers a call of the assistant message before its run of results.
 */
function chatProblem(messages: Json[]): ToolPairingProblem | undefined {
  let open = new Set<string>();
  let calledAt = -1;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message['role'] === 'tool') {
      const id = String(message['tool_call_id'] ?? '');
      if (!open.delete(id)) {
        return {
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `messages.[${index}].role`,
        };
      }
      continue;
    }
    if (open.size > 0) break;
    open = new Set(ids(list(message['tool_calls']), 'id'));
    calledAt = message['role'] === 'assistant' ? index : -1;
    if (calledAt < 0) open.clear();
  }
  if (open.size === 0) return undefined;
  return {
    message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
    param: `messages.[${calledAt}].role`,
  };
}

/** Responses: every `function_call` item has a `function_call_output` item and the reverse. */
function responsesProblem(items: Json[]): ToolPairingProblem | undefined {
  const calls = ids(
    items.filter((item) => item['type'] === 'function_call'),
    'call_id',
  );
  const outputs = ids(
    items.filter((item) => item['type'] === 'function_call_output'),
    'call_id',
  );
  const orphanOutput = outputs.find((id) => !calls.includes(id));
  if (orphanOutput !== undefined) {
    return {
      message: `No tool call found for function call output with call_id ${orphanOutput}.`,
      param: 'input',
    };
  }
  const unanswered = calls.find((id) => !outputs.includes(id));
  if (unanswered !== undefined) {
    return { message: `No tool output found for function call ${unanswered}.`, param: 'input' };
  }
  return undefined;
}

/**
 * What a real provider answers `400 invalid_request_error` about a request's tool blocks, or
 * `undefined` when every tool call and tool result is paired as the api requires.
 */
export function toolPairingProblem(
  api: MockApi,
  messages: unknown,
): ToolPairingProblem | undefined {
  const items = list(messages);
  switch (api) {
    case 'anthropic-messages':
      return anthropicProblem(items);
    case 'openai-chat':
      return chatProblem(items);
    case 'openai-responses':
      return responsesProblem(items);
  }
}
