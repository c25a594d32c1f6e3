import type { Message, ModelRequest, ResponseFormat, ToolChoice, ToolDefinition } from '@keel/spec';
import { contentBlocks, convertByRole, type TextBlock, toolResultText } from './content-blocks';
import type {
  OpenAIChatBody,
  OpenAIChatMessage,
  OpenAIChatResponseFormat,
  OpenAIChatTextPart,
  OpenAIChatTool,
  OpenAIChatToolCall,
  OpenAIChatToolChoice,
} from './openai-chat-body';
import { toolChoiceOf } from './tool-choice-of';
import { UnsupportedRequestError } from './transport-error';

type AssistantMessage = Extract<OpenAIChatMessage, { role: 'assistant' }>;

/** Which body field carries the output-token limit (older OpenAI-compatible servers want `max_tokens`). */
export type MaxTokensField = 'max_completion_tokens' | 'max_tokens';

export interface ToOpenAIChatOptions {
  /** Used when the request names no model. */
  model: string;
  maxTokens?: number;
  maxTokensField?: MaxTokensField;
  /** Ask for a final usage chunk (`stream_options.include_usage`); default true. */
  includeUsage?: boolean;
}

function textContent(blocks: TextBlock[]): string | OpenAIChatTextPart[] {
  const [only] = blocks;
  if (blocks.length === 1 && only !== undefined) return only.text;
  return blocks.map((block) => ({ type: 'text', text: block.text }));
}

/** The text of a message made of one text block (most are), converted with nothing else made. */
function onlyText(message: Message): string | undefined {
  if (typeof message.content === 'string') return message.content;
  const [first] = message.content;
  return message.content.length === 1 && first?.type === 'text' ? first.text : undefined;
}

function assistantMessage(message: Message): AssistantMessage {
  const text = onlyText(message);
  if (text !== undefined) return { role: 'assistant', content: text };
  const texts: TextBlock[] = [];
  const calls: OpenAIChatToolCall[] = [];
  for (const block of contentBlocks(message)) {
    switch (block.type) {
      case 'text':
        texts.push(block);
        break;
      case 'tool_use':
        calls.push({
          id: block.id,
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(block.input) },
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
  const result: AssistantMessage = {
    role: 'assistant',
    content: texts.length > 0 ? textContent(texts) : null,
  };
  if (calls.length > 0) result.tool_calls = calls;
  return result;
}

function toAssistantMessages(message: Message): AssistantMessage[] {
  return [assistantMessage(message)];
}

/** User and tool messages: tool results become `tool` messages first, then the user's text. */
function userMessages(message: Message): OpenAIChatMessage[] {
  const text = onlyText(message);
  if (text !== undefined) return [{ role: 'user', content: text }];
  const results: OpenAIChatMessage[] = [];
  const texts: TextBlock[] = [];
  for (const block of contentBlocks(message)) {
    switch (block.type) {
      case 'text':
        texts.push(block);
        break;
      case 'tool_result':
        results.push({
          role: 'tool',
          tool_call_id: block.toolUseId,
          content: toolResultText(block),
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
  if (texts.length > 0) results.push({ role: 'user', content: textContent(texts) });
  return results;
}

export function toOpenAIChatTool(tool: ToolDefinition): OpenAIChatTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.inputSchema,
    },
  };
}

function toOpenAIChatToolChoice(choice: ToolChoice): OpenAIChatToolChoice {
  return typeof choice === 'string'
    ? choice
    : { type: 'function', function: { name: choice.name } };
}

/** `response_format` as given; a JSON Schema goes under `json_schema`. */
export function toOpenAIChatResponseFormat(format: ResponseFormat): OpenAIChatResponseFormat {
  switch (format.type) {
    case 'text':
    case 'json_object':
      return { type: format.type };
    case 'json_schema': {
      const { name, schema, strict } = format;
      return {
        type: 'json_schema',
        json_schema: { name, schema, ...(strict === undefined ? {} : { strict }) },
      };
    }
    default: {
      const unexpected: never = format;
      throw new UnsupportedRequestError({
        message: `Unknown responseFormat ${JSON.stringify(unexpected)}`,
      });
    }
  }
}

/** Converts a Keel request to a streaming Chat Completions body. */
export function toOpenAIChat(request: ModelRequest, options: ToOpenAIChatOptions): OpenAIChatBody {
  const messages: OpenAIChatMessage[] = [];
  if (request.system !== undefined) messages.push({ role: 'system', content: request.system });
  convertByRole(request.messages, { assistant: toAssistantMessages, user: userMessages }, messages);
  const body: OpenAIChatBody = {
    model: request.model ?? options.model,
    messages,
    stream: true,
  };
  if (options.includeUsage !== false) body.stream_options = { include_usage: true };
  const maxTokens = request.maxTokens ?? options.maxTokens;
  if (maxTokens !== undefined) body[options.maxTokensField ?? 'max_completion_tokens'] = maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) body.stop = request.stop;
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map(toOpenAIChatTool);
  }
  const toolChoice = toolChoiceOf(request);
  if (toolChoice !== undefined) body.tool_choice = toOpenAIChatToolChoice(toolChoice);
  if (request.responseFormat !== undefined) {
    body.response_format = toOpenAIChatResponseFormat(request.responseFormat);
  }
  return body;
}
