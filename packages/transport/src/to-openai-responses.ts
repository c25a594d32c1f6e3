import type { Message, ModelRequest, ResponseFormat, ToolChoice, ToolDefinition } from '@keel/spec';
import { contentBlocks, convertByRole, toolResultText } from './content-blocks';
import type {
  OpenAIResponsesBody,
  OpenAIResponsesInputItem,
  OpenAIResponsesTextFormat,
  OpenAIResponsesTool,
  OpenAIResponsesToolChoice,
} from './openai-responses-body';
import { toolChoiceOf } from './tool-choice-of';
import { UnsupportedRequestError } from './transport-error';

export interface ToOpenAIResponsesOptions {
  /** Used when the request names no model. */
  model: string;
  maxTokens?: number;
}

function assistantItems(message: Message): OpenAIResponsesInputItem[] {
  if (typeof message.content === 'string') {
    return [{ type: 'message', role: 'assistant', content: message.content }];
  }
  const items: OpenAIResponsesInputItem[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case 'text':
        items.push({ type: 'message', role: 'assistant', content: block.text });
        break;
      case 'tool_use':
        items.push({
          type: 'function_call',
          call_id: block.id,
          name: block.name,
          arguments: JSON.stringify(block.input),
        });
        break;
      case 'tool_result':
        throw new UnsupportedRequestError({
          message: 'An assistant message cannot hold a tool_result block.',
        });
      default: {
        const unexpected: never = block;
        throw new UnsupportedRequestError({ message: `Unknown block ${String(unexpected)}` });
      }
    }
  }
  return items;
}

/** User and tool messages: tool results become `function_call_output` items, then the user's text. */
function userItems(message: Message): OpenAIResponsesInputItem[] {
  if (typeof message.content === 'string') {
    return [{ type: 'message', role: 'user', content: message.content }];
  }
  const items: OpenAIResponsesInputItem[] = [];
  const texts: string[] = [];
  for (const block of contentBlocks(message)) {
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        break;
      case 'tool_result':
        items.push({
          type: 'function_call_output',
          call_id: block.toolUseId,
          output: toolResultText(block),
        });
        break;
      case 'tool_use':
        throw new UnsupportedRequestError({
          message: `A ${message.role} message cannot hold a tool_use block.`,
        });
      default: {
        const unexpected: never = block;
        throw new UnsupportedRequestError({ message: `Unknown block ${String(unexpected)}` });
      }
    }
  }
  if (texts.length > 0) {
    items.push({
      type: 'message',
      role: 'user',
      content: texts.map((text) => ({ type: 'input_text', text })),
    });
  }
  return items;
}

export function toOpenAIResponsesTool(tool: ToolDefinition): OpenAIResponsesTool {
  return {
    type: 'function',
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    parameters: tool.inputSchema,
    strict: false,
  };
}

function toOpenAIResponsesToolChoice(choice: ToolChoice): OpenAIResponsesToolChoice {
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
}

/** The Responses API's `text.format`: a JSON Schema's fields sit beside its `type`. */
export function toOpenAIResponsesTextFormat(format: ResponseFormat): OpenAIResponsesTextFormat {
  switch (format.type) {
    case 'text':
    case 'json_object':
      return { type: format.type };
    case 'json_schema': {
      const { name, schema, strict } = format;
      return { type: 'json_schema', name, schema, ...(strict === undefined ? {} : { strict }) };
    }
    default: {
      const unexpected: never = format;
      throw new UnsupportedRequestError({
        message: `Unknown responseFormat ${JSON.stringify(unexpected)}`,
      });
    }
  }
}

/**
 * Converts a Keel request to a streaming Responses body (`store: false`: the whole history is
 * sent each time). The Responses API has no stop sequences, so a request with `stop` is refused.
 */
export function toOpenAIResponses(
  request: ModelRequest,
  options: ToOpenAIResponsesOptions,
): OpenAIResponsesBody {
  if (request.stop !== undefined && request.stop.length > 0) {
    throw new UnsupportedRequestError({
      message: 'The openai-responses API has no stop sequences; use openai-chat for `stop`.',
    });
  }
  const input = convertByRole(request.messages, { assistant: assistantItems, user: userItems });
  const body: OpenAIResponsesBody = {
    model: request.model ?? options.model,
    input,
    stream: true,
    store: false,
  };
  if (request.system !== undefined) body.instructions = request.system;
  const maxTokens = request.maxTokens ?? options.maxTokens;
  if (maxTokens !== undefined) body.max_output_tokens = maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map(toOpenAIResponsesTool);
  }
  const toolChoice = toolChoiceOf(request);
  if (toolChoice !== undefined) body.tool_choice = toOpenAIResponsesToolChoice(toolChoice);
  if (request.responseFormat !== undefined) {
    body.text = { format: toOpenAIResponsesTextFormat(request.responseFormat) };
  }
  return body;
}
