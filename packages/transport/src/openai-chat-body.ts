/** A text part of a Chat Completions message. */
export interface OpenAIChatTextPart {
  type: 'text';
  text: string;
}

/** A function call an assistant message made. */
export interface OpenAIChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** The Chat Completions messages the transport sends (a subset of the SDK's message params). */
export type OpenAIChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | OpenAIChatTextPart[] }
  | {
      role: 'assistant';
      content: string | OpenAIChatTextPart[] | null;
      tool_calls?: OpenAIChatToolCall[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A function tool definition. */
export interface OpenAIChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

/** `tool_choice`: a mode, or one named function. */
export type OpenAIChatToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'function'; function: { name: string } };

/** `response_format`: text, JSON mode, or Structured Outputs with a JSON Schema. */
export type OpenAIChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean };
    };

/** The streaming Chat Completions body `toOpenAIChat` builds (the SDK's streaming params accept it). */
export interface OpenAIChatBody {
  model: string;
  messages: OpenAIChatMessage[];
  stream: true;
  stream_options?: { include_usage: boolean };
  max_completion_tokens?: number;
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  tools?: OpenAIChatTool[];
  tool_choice?: OpenAIChatToolChoice;
  response_format?: OpenAIChatResponseFormat;
}

/** The same body for one non-streamed call (`stream: false`, no `stream_options`). */
export type OpenAIChatWholeBody = Omit<OpenAIChatBody, 'stream' | 'stream_options'> & {
  stream: false;
};
