import type { Message, ModelRequest, ToolChoice, ToolDefinition } from '@keel/spec';
import type {
  AnthropicContentBlockParam,
  AnthropicMessageParam,
  AnthropicMessagesBody,
  AnthropicTool,
  AnthropicToolChoice,
} from './anthropic-messages-body';
import { toolChoiceOf } from './tool-choice-of';
import { UnsupportedRequestError } from './transport-error';

/** Anthropic requires `max_tokens`; used when neither the request nor the transport sets one. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

export interface ToAnthropicMessagesOptions {
  /** Used when the request names no model. */
  model: string;
  maxTokens?: number;
}

function block(message: Message, content: Exclude<Message['content'], string>[number]) {
  switch (content.type) {
    case 'text':
      return { type: 'text', text: content.text } satisfies AnthropicContentBlockParam;
    case 'tool_use':
      if (message.role !== 'assistant') {
        throw new UnsupportedRequestError({
          message: `A ${message.role} message cannot hold a tool_use block.`,
        });
      }
      return {
        type: 'tool_use',
        id: content.id,
        name: content.name,
        input: content.input,
      } satisfies AnthropicContentBlockParam;
    case 'tool_result':
      if (message.role === 'assistant') {
        throw new UnsupportedRequestError({
          message: 'An assistant message cannot hold a tool_result block.',
        });
      }
      return {
        type: 'tool_result',
        tool_use_id: content.toolUseId,
        content: content.content,
        ...(content.isError === undefined ? {} : { is_error: content.isError }),
      } satisfies AnthropicContentBlockParam;
    default: {
      const unexpected: never = content;
      throw new UnsupportedRequestError({ message: `Unknown block ${String(unexpected)}` });
    }
  }
}

/**
 * One Messages API message. In a user (or tool) message the `tool_result` blocks go first, in
 * their order, then the rest: the API rejects a user message with text before a tool result.
 */
function toMessageParam(message: Message): AnthropicMessageParam {
  const role = message.role === 'assistant' ? 'assistant' : 'user';
  if (typeof message.content === 'string') return { role, content: message.content };
  const blocks = message.content.map((content) => block(message, content));
  if (role === 'assistant') return { role, content: blocks };
  return {
    role,
    content: [
      ...blocks.filter((param) => param.type === 'tool_result'),
      ...blocks.filter((param) => param.type !== 'tool_result'),
    ],
  };
}

export function toAnthropicTool(tool: ToolDefinition): AnthropicTool {
  return {
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    input_schema: { type: 'object', ...tool.inputSchema },
  };
}

function toAnthropicToolChoice(choice: ToolChoice): AnthropicToolChoice {
  if (typeof choice !== 'string') return { type: 'tool', name: choice.name };
  return { type: choice === 'required' ? 'any' : choice };
}

/**
 * Converts a Keel request to a streaming Messages body (`tool` messages become `user` messages).
 * The Messages API has no JSON mode: a `responseFormat` other than `text` is refused, never
 * dropped, so nobody takes free text for the JSON they asked for.
 */
export function toAnthropicMessages(
  request: ModelRequest,
  options: ToAnthropicMessagesOptions,
): AnthropicMessagesBody {
  const format = request.responseFormat;
  if (format !== undefined && format.type !== 'text') {
    throw new UnsupportedRequestError({
      message: `The anthropic-messages API cannot honour \`responseFormat: ${format.type}\`; only text.`,
    });
  }
  const body: AnthropicMessagesBody = {
    model: request.model ?? options.model,
    max_tokens: request.maxTokens ?? options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    messages: request.messages.map(toMessageParam),
    stream: true,
  };
  if (request.system !== undefined) body.system = request.system;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) body.stop_sequences = request.stop;
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map(toAnthropicTool);
  }
  const toolChoice = toolChoiceOf(request);
  if (toolChoice !== undefined) body.tool_choice = toAnthropicToolChoice(toolChoice);
  return body;
}
