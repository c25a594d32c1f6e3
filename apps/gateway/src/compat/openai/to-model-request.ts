// Translates a Chat Completions body into the spec's request, so any upstream wire can answer it:
// system and developer messages become the system prompt, tool calls and results become
// `tool_use` / `tool_result` blocks with the client's ids kept, so they pair up both ways.
import type { ContentBlock, Message, ModelRequest, ResponseFormat, ToolChoice } from '@keel/spec';
import type { ChatMessage, ChatRequest } from './chat-request-schema';

/** The translated request, or the field that could not be translated. */
export type TranslatedRequest =
  | { ok: true; request: Omit<ModelRequest, 'model'> }
  | { ok: false; param: string; message: string };

type Text = string | Array<{ type: 'text'; text: string }>;

function plain(content: Text): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

function textBlocks(content: Text): ContentBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content
    .filter((part) => part.text !== '')
    .map((part) => ({ type: 'text', text: part.text }));
}

class BadField extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

function toolInput(args: string, param: string): Record<string, unknown> {
  let input: unknown;
  try {
    input = args.trim() === '' ? {} : JSON.parse(args);
  } catch {
    throw new BadField(param, `Invalid body: ${param}: must be a JSON object`);
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new BadField(param, `Invalid body: ${param}: must be a JSON object`);
  }
  return input as Record<string, unknown>;
}

function assistantMessage(
  message: Extract<ChatMessage, { role: 'assistant' }>,
  at: number,
): Message {
  const blocks = message.content == null ? [] : textBlocks(message.content);
  (message.tool_calls ?? []).forEach((call, index) => {
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: toolInput(
        call.function.arguments,
        `messages.${at}.tool_calls.${index}.function.arguments`,
      ),
    });
  });
  return { role: 'assistant', content: blocks };
}

function messagesOf(chat: readonly ChatMessage[]): { system: string[]; messages: Message[] } {
  const system: string[] = [];
  const messages: Message[] = [];
  chat.forEach((message, at) => {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(plain(message.content));
        return;
      case 'user':
        messages.push({
          role: 'user',
          content:
            typeof message.content === 'string' ? message.content : textBlocks(message.content),
        });
        return;
      case 'assistant':
        messages.push(assistantMessage(message, at));
        return;
      case 'tool': {
        const result: ContentBlock = {
          type: 'tool_result',
          toolUseId: message.tool_call_id,
          content: plain(message.content),
        };
        // Consecutive tool messages answer one assistant turn: one message of results.
        const last = messages.at(-1);
        if (last?.role === 'tool' && Array.isArray(last.content)) last.content.push(result);
        else messages.push({ role: 'tool', content: [result] });
        return;
      }
      default: {
        const unexpected: never = message;
        throw new BadField(`messages.${at}.role`, `Unknown role ${String(unexpected)}`);
      }
    }
  });
  return { system, messages };
}

function toolChoiceOf(choice: NonNullable<ChatRequest['tool_choice']>): ToolChoice {
  return typeof choice === 'string' ? choice : { type: 'tool', name: choice.function.name };
}

function responseFormatOf(format: NonNullable<ChatRequest['response_format']>): ResponseFormat {
  if (format.type !== 'json_schema') return { type: format.type };
  const { name, schema, strict } = format.json_schema;
  return { type: 'json_schema', name, schema: schema ?? {}, ...(strict == null ? {} : { strict }) };
}

/** The spec's request for a validated body (`model` is left to the route). */
export function toModelRequest(body: ChatRequest): TranslatedRequest {
  let converted: ReturnType<typeof messagesOf>;
  try {
    converted = messagesOf(body.messages);
  } catch (error) {
    if (error instanceof BadField) return { ok: false, param: error.param, message: error.message };
    throw error;
  }
  if (converted.messages.length === 0) {
    return {
      ok: false,
      param: 'messages',
      message: 'Invalid body: messages: needs a user message besides the system messages',
    };
  }
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  const stop = body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
  const request: Omit<ModelRequest, 'model'> = {
    messages: converted.messages,
    ...(converted.system.length === 0 ? {} : { system: converted.system.join('\n\n') }),
    ...(body.tools == null || body.tools.length === 0
      ? {}
      : {
          tools: body.tools.map(({ function: tool }) => ({
            name: tool.name,
            ...(tool.description == null ? {} : { description: tool.description }),
            inputSchema: tool.parameters ?? { type: 'object', properties: {} },
          })),
        }),
    ...(body.tool_choice == null ? {} : { toolChoice: toolChoiceOf(body.tool_choice) }),
    ...(body.temperature == null ? {} : { temperature: body.temperature }),
    ...(body.top_p == null ? {} : { topP: body.top_p }),
    ...(maxTokens == null ? {} : { maxTokens }),
    ...(stop.length === 0 ? {} : { stop }),
    ...(body.response_format == null
      ? {}
      : { responseFormat: responseFormatOf(body.response_format) }),
  };
  return { ok: true, request };
}
