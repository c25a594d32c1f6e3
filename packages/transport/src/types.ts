/**
 * The one call shape every transport speaks. Conversions to and from each wire format live
 * next to the transport that needs them; this file holds only the shared contract.
 */

export type TransportApi = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'claude-cli';

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; toolUseId: string; content: string; isError?: boolean };

/** `tool` messages hold `tool_result` blocks; `user` messages may hold them too. */
export type MessageRole = 'user' | 'assistant' | 'tool';

export interface Message {
  role: MessageRole;
  content: string | ContentBlock[];
}

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the tool's input object. */
  inputSchema: Record<string, unknown>;
}

export interface ModelRequest {
  /** Falls back to the transport's configured `model`. */
  model?: string;
  system?: string;
  messages: Message[];
  tools?: ToolDefinition[];
  maxTokens?: number;
  temperature?: number;
  stop?: string[];
}

export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'other';

/**
 * Why a claude-cli binding was dropped before the turn: its transcript is gone, it ends in a
 * `tool_use` nothing answered, or its last exchange is too long to inspect within the bound.
 */
export type BindingInvalidReason =
  | 'missing-transcript'
  | 'orphaned-tool-use'
  | 'unverifiable-transcript';

export type TransportEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'usage'; inputTokens: number; outputTokens: number }
  | { type: 'finish'; reason: FinishReason }
  /** claude-cli only: the stored binding could not be resumed; a fresh CLI session was started. */
  | {
      type: 'binding-invalidated';
      sessionId: string;
      cliSessionId: string;
      reason: BindingInvalidReason;
      orphanedToolUseIds?: string[];
    }
  /** claude-cli only: the CLI session this turn ran in (new or resumed). */
  | { type: 'session-bound'; sessionId: string; cliSessionId: string; resumed: boolean };

export interface CallOptions {
  signal?: AbortSignal;
  /** SDK-level retries for this call; a retry pin overrides it. */
  maxRetries?: number;
  /** Whole-attempt timeout in ms. */
  timeoutMs?: number;
  /** Time allowed until the first event, in ms. */
  firstTokenTimeoutMs?: number;
  /** Longest allowed silence between two chunks, in ms. */
  stallTimeoutMs?: number;
  /** claude-cli: the gateway session this call belongs to (selects the binding). */
  sessionId?: string;
}

/** Sanitized request facts handed to lifecycle hooks: never an API key. */
export interface RequestInfo {
  provider: string;
  api: TransportApi;
  model: string;
  /** Base URL with credentials and query string removed. */
  url: string;
  attemptId: string;
}

/**
 * Request lifecycle hooks. Each runs synchronously in the call path and must not throw: a
 * throwing hook is caught and ignored so observation never breaks a call.
 */
export interface TransportHooks {
  /** Before the request is sent. */
  onRequestStart?(context: RequestInfo): void;
  /** After the stream finished successfully (terminal event seen). */
  onResponse?(context: RequestInfo & { status: number | undefined; elapsedMs: number }): void;
  /** After the call failed; `errorKind` is `classifyError(error).kind`. */
  onRequestError?(
    context: RequestInfo & { status: number | undefined; elapsedMs: number; errorKind: string },
  ): void;
}

export interface Transport {
  /** The contract version a third-party transport implements. */
  readonly specificationVersion?: 'v1';
  readonly api: TransportApi;
  readonly provider: string;
  /** One model call as a stream of events. Errors are thrown from the iterator. */
  stream(request: ModelRequest, options?: CallOptions): AsyncIterable<TransportEvent>;
}
