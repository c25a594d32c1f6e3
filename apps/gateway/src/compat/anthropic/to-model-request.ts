// Translates an Anthropic Messages request into the spec's `ModelRequest`, so any upstream (an
// Anthropic or an OpenAI wire, through the orchestrator) can answer it; tool ids are kept as sent.
import type { ContentBlock, Message, ModelRequest, ToolChoice, ToolDefinition } from '@keel/spec';
import { z } from 'zod';
import {
  AnthropicRequestError,
  type CountTokensBody,
  type MessagesBody,
  parseOrThrow,
} from './anthropic-request';

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const toolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
});
const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
  is_error: z.boolean().optional(),
});
const customTool = z.looseObject({
  type: z.literal('custom').optional(),
  name: z.string().min(1),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()),
});

/** Block types of the Messages API this endpoint cannot carry to every upstream. */
const UNSUPPORTED = new Set([
  'image',
  'document',
  'search_result',
  'container_upload',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
]);

/** The request without `model` (the route decides), for `CompatContext.call`. */
export function toModelRequest(body: MessagesBody): Omit<ModelRequest, 'model'> {
  const { system, messages } = conversation(body);
  const tools = toolDefinitions(body);
  const toolChoice = body.tool_choice === undefined ? undefined : toToolChoice(body.tool_choice);
  return {
    ...(system === undefined ? {} : { system }),
    messages,
    ...(tools === undefined || tools.length === 0 ? {} : { tools }),
    maxTokens: body.max_tokens,
    ...(body.temperature === undefined ? {} : { temperature: body.temperature }),
    ...(body.top_p === undefined ? {} : { topP: body.top_p }),
    ...(body.stop_sequences === undefined || body.stop_sequences.length === 0
      ? {}
      : { stop: body.stop_sequences }),
    ...(toolChoice === undefined ? {} : { toolChoice }),
  };
}

/**
 * The system prompt and the messages. `system` blocks are joined with blank lines; `system`
 * messages (Claude Code sends some mid-conversation) are appended to the system prompt in order,
 * as the spec's request has one. Thinking blocks are dropped (thinking is not carried).
 */
export function conversation(body: CountTokensBody): { system?: string; messages: Message[] } {
  const systems: string[] = [];
  if (typeof body.system === 'string') systems.push(body.system);
  else if (body.system !== undefined) systems.push(body.system.map((b) => b.text).join('\n\n'));
  const messages: Message[] = [];
  body.messages.forEach((message, index) => {
    const at = `messages.${index}`;
    if (message.role === 'system') {
      systems.push(
        typeof message.content === 'string'
          ? message.content
          : message.content
              .map(
                (block, blockIndex) =>
                  parseOrThrow(textBlock, block, `${at}.content.${blockIndex}`).text,
              )
              .join('\n\n'),
      );
      return;
    }
    if (typeof message.content === 'string') {
      messages.push({ role: message.role, content: message.content });
      return;
    }
    const content = message.content.flatMap((block, blockIndex) =>
      toBlock(message.role as 'user' | 'assistant', block, `${at}.content.${blockIndex}`),
    );
    if (content.length === 0 && message.content.length > 0) return; // only thinking blocks
    messages.push({ role: message.role, content });
  });
  if (messages.length === 0) {
    throw new AnthropicRequestError('messages', 'needs at least one user or assistant message');
  }
  const system = systems.filter((text) => text !== '').join('\n\n');
  return { ...(system === '' ? {} : { system }), messages };
}

function toBlock(role: 'user' | 'assistant', block: { type: string }, at: string): ContentBlock[] {
  switch (block.type) {
    case 'text':
      return [{ type: 'text', text: parseOrThrow(textBlock, block, at).text }];
    case 'thinking':
    case 'redacted_thinking':
      if (role !== 'assistant')
        throw new AnthropicRequestError(at, 'only an assistant message holds thinking');
      return [];
    case 'tool_use': {
      if (role !== 'assistant') {
        throw new AnthropicRequestError(
          `${at}.type`,
          'a tool_use block belongs in an assistant message',
        );
      }
      const use = parseOrThrow(toolUseBlock, block, at);
      return [{ type: 'tool_use', id: use.id, name: use.name, input: use.input }];
    }
    case 'tool_result': {
      if (role !== 'user') {
        throw new AnthropicRequestError(
          `${at}.type`,
          'a tool_result block belongs in a user message',
        );
      }
      const result = parseOrThrow(toolResultBlock, block, at);
      return [
        {
          type: 'tool_result',
          toolUseId: result.tool_use_id,
          content: toolResultText(result.content, `${at}.content`),
          ...(result.is_error === undefined ? {} : { isError: result.is_error }),
        },
      ];
    }
    default:
      throw new AnthropicRequestError(
        `${at}.type`,
        UNSUPPORTED.has(block.type)
          ? `${block.type} blocks are not supported by this gateway`
          : `unknown block type "${block.type.slice(0, 40)}"`,
      );
  }
}

function toolResultText(content: string | Array<{ type: string }> | undefined, at: string): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, index) => {
      if (part.type !== 'text') {
        throw new AnthropicRequestError(
          `${at}.${index}.type`,
          `${part.type.slice(0, 40)} content in a tool_result is not supported (text only)`,
        );
      }
      return parseOrThrow(textBlock, part, `${at}.${index}`).text;
    })
    .join('\n');
}

/** The request's tools; a server tool (any `type` but `custom`) is a 400. */
export function toolDefinitions(body: CountTokensBody): ToolDefinition[] | undefined {
  return body.tools?.map(toolDefinition);
}

function toolDefinition(tool: { type?: string | undefined }, index: number): ToolDefinition {
  const at = `tools.${index}`;
  if (tool.type !== undefined && tool.type !== 'custom') {
    throw new AnthropicRequestError(
      `${at}.type`,
      `server tools ("${tool.type.slice(0, 40)}") are not supported: send tools with name, description and input_schema`,
    );
  }
  const custom = parseOrThrow(customTool, tool, at);
  return {
    name: custom.name,
    ...(custom.description === undefined ? {} : { description: custom.description }),
    inputSchema: custom.input_schema,
  };
}

function toToolChoice(choice: NonNullable<MessagesBody['tool_choice']>): ToolChoice {
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'tool', name: choice.name };
    default: {
      const unexpected: never = choice;
      return unexpected;
    }
  }
}
