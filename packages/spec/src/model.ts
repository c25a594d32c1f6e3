import type { Message, Usage } from './content';

/** A tool the model may call, described by the JSON Schema of its input object. */
export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** One model call's input, independent of any provider's wire format. */
export interface ModelRequest {
  /** Falls back to the model port's configured model. */
  model?: string;
  system?: string;
  messages: Message[];
  tools?: ToolDefinition[];
  maxTokens?: number;
  temperature?: number;
  /** Nucleus sampling (OpenAI `top_p`, Anthropic `top_p`). */
  topP?: number;
  stop?: string[];
  /** Whether and which tool the model must call; default the provider's (`auto`). */
  toolChoice?: ToolChoice;
  /**
   * The answer's format. A port that cannot honour it refuses the request (`invalid_request`)
   * rather than ignore it.
   */
  responseFormat?: ResponseFormat;
  /**
   * How the caller takes the answer. `whole` (a client that asked for no stream): a port may make
   * one non-streamed call and emit the same events once the answer is complete; the call is then
   * bounded by its whole-attempt `timeoutMs`, not by first-token or stall clocks. Default `stream`.
   */
  delivery?: 'stream' | 'whole';
}

/** `auto`: the model decides; `none`: no tool; `required`: some tool; `tool`: that one. */
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };

/** Plain text, any JSON object, or JSON matching a schema (OpenAI `response_format`). */
export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

/** Why the model stopped. `length` means the output was cut at the token limit. */
export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'other';

/**
 * Why a bound CLI session (claude-cli) could not be resumed: its transcript is gone, it ends in a
 * `tool_use` nothing answered, or its last exchange is too long to inspect within the bound.
 */
export type BindingInvalidReason =
  | 'missing-transcript'
  | 'orphaned-tool-use'
  | 'unverifiable-transcript';

/**
 * What a model call streams, as a union on `type`. Errors are not events: they are thrown from
 * the iterator (and classified with `classifyError`).
 */
export type ModelEvent =
  /** A piece of the reply's text. */
  | { type: 'text-delta'; text: string }
  /**
   * A complete tool call. When the port's `capabilities.runsOwnTools` is true the model's own
   * runtime already ran it: record it, never execute it.
   */
  | { type: 'tool-call'; id: string; name: string; input: Record<string, unknown> }
  /** Only from ports that run their own tools: the result of a tool call they ran. */
  | { type: 'tool-result'; toolUseId: string; content: string; isError?: boolean }
  /** The model declined; `text` is its refusal (chat `delta.refusal`, Responses refusal parts). */
  | { type: 'refusal'; text: string }
  /** What the call consumed (the `Usage` fields; cache counts when the provider gave them). */
  | ({ type: 'usage' } & Usage)
  /** The last event of a complete call. A stream that ends without it was cut short. */
  | { type: 'finish'; reason: FinishReason }
  /** claude-cli: the stored binding could not be resumed; a fresh CLI session was started. */
  | {
      type: 'binding-invalidated';
      sessionId: string;
      cliSessionId: string;
      reason: BindingInvalidReason;
      orphanedToolUseIds?: string[];
    }
  /** claude-cli: the CLI session this call ran in (new or resumed). */
  | { type: 'session-bound'; sessionId: string; cliSessionId: string; resumed: boolean };

/** Per-call options of a model port. */
export interface ModelCallOptions {
  signal?: AbortSignal;
  /**
   * SDK-level retries for this call. The orchestrator always passes 0: it owns every retry, and
   * a retry inside a released session fence could reply to a session another writer took over.
   */
  maxRetries?: number;
  /** Whole-attempt timeout in ms. */
  timeoutMs?: number;
  /** Time allowed until the first chunk of model output, in ms. */
  firstTokenTimeoutMs?: number;
  /** Longest allowed silence between two chunks, in ms. */
  stallTimeoutMs?: number;
  /** The session this call belongs to (claude-cli selects its binding with it). */
  sessionId?: string;
}

/** What a model port can do, so its caller can adapt without knowing the port's kind. */
export interface ModelCapabilities {
  /**
   * The model's runtime executes its own tools (claude-cli): `tool-call` events are records of
   * calls already made, followed by their `tool-result` events.
   */
  readonly runsOwnTools: boolean;
  /** Calls carry state between them for a `sessionId` (claude-cli bindings). */
  readonly bindsSessions: boolean;
}

/** The model-call port: what `@keel/transport` implements and compaction and the orchestrator call. */
export interface ModelPort {
  readonly specificationVersion: 'v1';
  /** Provider id, for events and logs. */
  readonly provider: string;
  /** The wire API (`anthropic-messages`, `openai-chat`, `openai-responses`, `claude-cli`, …). */
  readonly api: string;
  readonly capabilities: ModelCapabilities;
  /** One model call as a stream of events. Errors are thrown from the iterator. */
  stream(request: ModelRequest, options?: ModelCallOptions): AsyncIterable<ModelEvent>;
}
