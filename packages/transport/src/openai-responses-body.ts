/** The Responses input items the transport sends (a subset of the SDK's `ResponseInputItem`). */
export type OpenAIResponsesInputItem =
  | {
      type: 'message';
      role: 'user' | 'assistant';
      content: string | Array<{ type: 'input_text'; text: string }>;
    }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };

/** A function tool definition. */
export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

/** `tool_choice`: a mode, or one named function (flat, unlike Chat Completions). */
export type OpenAIResponsesToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'function'; name: string };

/** `text.format`: text, JSON mode, or Structured Outputs (the schema's fields flat, beside `type`). */
export type OpenAIResponsesTextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

/** The streaming Responses body `toOpenAIResponses` builds (the SDK's streaming params accept it). */
export interface OpenAIResponsesBody {
  model: string;
  input: OpenAIResponsesInputItem[];
  stream: true;
  store: false;
  instructions?: string;
  max_output_tokens?: number;
  temperature?: number;
  top_p?: number;
  tools?: OpenAIResponsesTool[];
  tool_choice?: OpenAIResponsesToolChoice;
  text?: { format: OpenAIResponsesTextFormat };
}
