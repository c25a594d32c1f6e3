/** The content blocks the transport sends (a subset of the SDK's `ContentBlockParam`). */
export type AnthropicContentBlockParam =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

export interface AnthropicMessageParam {
  role: 'user' | 'assistant';
  content: string | AnthropicContentBlockParam[];
}

/** A tool definition; `input_schema` is a JSON Schema object. */
export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: { type: 'object'; [key: string]: unknown };
}

/** `tool_choice`: `any` is "some tool" (OpenAI's `required`). */
export type AnthropicToolChoice =
  | { type: 'auto' }
  | { type: 'any' }
  | { type: 'none' }
  | { type: 'tool'; name: string };

/**
 * The streaming Messages body `toAnthropicMessages` builds (the SDK's streaming params accept
 * it). `temperature` is no longer in the SDK's types (deprecated by the API) but the wire still
 * accepts it, so a request's temperature is sent as is; `top_p` likewise.
 */
export interface AnthropicMessagesBody {
  model: string;
  max_tokens: number;
  messages: AnthropicMessageParam[];
  stream: true;
  system?: string;
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
}

/** The same body for one non-streamed call (`stream: false`). */
export type AnthropicMessagesWholeBody = Omit<AnthropicMessagesBody, 'stream'> & { stream: false };
