/** Plain text, from a user or a model. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** A model's request to run a tool. `id` pairs it with its `tool_result`. */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** What a tool returned (or why it failed, with `isError`), answering the `tool_use` with `toolUseId`. */
export interface ToolResultBlock {
  type: 'tool_result';
  toolUseId: string;
  content: string;
  isError?: boolean;
}

/** One block of a message's content. */
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

/** Who wrote a message. `tool` messages hold `tool_result` blocks; `user` messages may hold them too. */
export type Role = 'user' | 'assistant' | 'tool';

/**
 * One message of a model request. A bare string is one text block; transcripts always store
 * blocks (`MessageEntry.content`).
 */
export interface Message {
  role: Role;
  content: string | ContentBlock[];
}

/** Tokens a model call consumed, as its provider reported them. */
export interface Usage {
  /** Input tokens, cached ones included (OpenAI's `prompt_tokens`; Anthropic's three input counts added up). */
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those read from the provider's prompt cache, when it said. */
  cacheReadTokens?: number;
  /** Of `inputTokens`, those written to the provider's prompt cache, when it said. */
  cacheWriteTokens?: number;
}
