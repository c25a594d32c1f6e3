/**
 * Public types of the loopback mock provider. The contract other packages' tests rely on:
 * change it only by adding optional members. Shapes the spec holds come from `@keel/spec`.
 */
import type { ToolCall, Usage } from '@keel/spec';
import type { MockChaosInjection, MockChaosOptions, MockChaosStats } from './mock-chaos-types';

/** The wire formats the mock provider speaks. */
export type MockApi = 'openai-chat' | 'openai-responses' | 'anthropic-messages';

/**
 * A tool call the mock model makes (Anthropic `tool_use`, OpenAI `tool_calls` / `function_call`):
 * the spec's `ToolCall` with an optional id.
 */
export interface MockToolCall extends Omit<ToolCall, 'id'> {
  /** Defaults to a deterministic id (`toolu_mock_<n>` / `call_mock_<n>`). */
  id?: string;
}

/** Token usage the mock reports: the spec's `Usage`. */
export type MockUsage = Usage;

/** Provider-side error types, named as the providers name them on the wire. */
export type MockErrorType =
  | 'overloaded_error'
  | 'rate_limit_error'
  | 'authentication_error'
  | 'permission_error'
  | 'billing_error'
  | 'insufficient_quota'
  | 'invalid_request_error'
  | 'not_found_error'
  | 'api_error'
  | 'server_error'
  | (string & {});

/** What the mock does with one request. Consumed from the queue, one per request. */
export type MockBehavior =
  /** A normal answer: text (default: the deterministic default reply) and/or tool calls. */
  | {
      type: 'ok';
      text?: string;
      toolCalls?: MockToolCall[];
      /**
       * The model declines, with this text instead of an answer: Chat Completions streams it as
       * `delta.refusal` (`message.refusal`), Responses as a `refusal` content part
       * (`response.refusal.delta` / `.done`), Anthropic as text with `stop_reason: 'refusal'`.
       */
      refusal?: string;
      usage?: Usage;
      /** Delay before each streamed chunk (slow tokens). */
      chunkDelayMs?: number;
      /** Characters per streamed text chunk; default 8. */
      chunkSize?: number;
      /**
       * A slow first token: the headers go out at once, then nothing for this long before the
       * first streamed event (non-streaming: before the body).
       */
      firstChunkDelayMs?: number;
      /**
       * After this many text chunks, one extra server-sent event whose data is cut-off JSON; the
       * rest of the answer follows unchanged (streaming requests only).
       */
      malformedAfterChunks?: number;
      /**
       * The complete answer, but the stream ends cleanly without its last event: chat
       * `data: [DONE]` (after the finish reason and usage chunks), Anthropic `message_stop`
       * (after `message_delta`), Responses `response.completed` (streaming requests only).
       */
      omitTerminalEvent?: boolean;
    }
  /**
   * An HTTP error. Without `body`, a provider-shaped body is built for the request's api:
   * Anthropic `{ type: 'error', error: { type, message }, request_id }`,
   * OpenAI `{ error: { message, type, param: null, code } }`.
   */
  | {
      type: 'http-error';
      status: number;
      errorType?: MockErrorType;
      message?: string;
      /** OpenAI `error.code` (e.g. `insufficient_quota`, `context_length_exceeded`). */
      code?: string;
      /** Replaces the generated body entirely (object → JSON, string → sent as is). */
      body?: unknown;
      headers?: Record<string, string>;
      /**
       * Overrides for OpenAI requests (chat and responses), so one behaviour can speak each
       * provider's wording (e.g. billing: Anthropic 400 "credit balance is too low", OpenAI
       * 429 `insufficient_quota`). Members left out fall back to the ones above.
       */
      openai?: { status?: number; errorType?: MockErrorType; message?: string; code?: string };
    }
  /** Destroy the socket before any response header is written. */
  | { type: 'reset-before-headers' }
  /** Stream `chunks` text chunks (status 200, streaming requests), then destroy the socket. */
  | { type: 'reset-after-chunks'; chunks: number; text?: string }
  /**
   * Stream `afterChunks` text chunks, then an in-stream error: Anthropic `event: error` with
   * `{ type: 'error', error: { type, message } }`; OpenAI chat a `data: { error: {...} }` chunk;
   * OpenAI responses an `error` / `response.failed` event. Then end the stream.
   */
  | { type: 'stream-error'; afterChunks?: number; errorType?: MockErrorType; message?: string }
  /** Stream some chunks, then end the response cleanly but without the terminal event. */
  | { type: 'truncated-stream'; chunks?: number; text?: string }
  /** Accept the request and never answer (headers are not sent), until the client gives up or close(). */
  | { type: 'hang' }
  /** Send headers and `afterChunks` chunks (default 0) of a streaming response, then go silent. */
  | { type: 'stall'; afterChunks?: number };

/** Which requests something applies to: every field given must fit (none given: all requests). */
export interface MockMatch {
  api?: MockApi;
  /** Exact model name, or a RegExp. A request without a model never fits a model filter. */
  model?: string | RegExp;
  apiKey?: string;
  /**
   * `true`: only requests whose last message is the assistant's (a prefill to continue);
   * `false`: only the others. Chat and Anthropic `messages`, Responses `input` items.
   */
  prefill?: boolean;
}

/** A queued behaviour with an optional filter; unmatched requests skip it (it stays queued). */
export interface MockScriptEntry {
  behavior: MockBehavior;
  match?: MockMatch;
  /** How many requests this entry answers before it is used up; default 1. */
  times?: number;
  /**
   * The entry answers only requests that arrive within this many ms of its being queued; then it
   * is used up, whatever is left of `times` (e.g. a provider that is down for a minute).
   */
  forMs?: number;
}

/** One request as the mock received it. */
export interface RecordedRequest {
  api: MockApi | 'count-tokens' | 'other';
  method: string;
  /** Path including query string, e.g. `/v1/messages?beta=true`. */
  path: string;
  model: string | undefined;
  /** The API key from `Authorization: Bearer` or `x-api-key`. */
  apiKey: string | undefined;
  stream: boolean;
  /** `messages` (chat / Anthropic) or `input` (responses) exactly as sent. */
  messages: unknown;
  /** Anthropic `system` or OpenAI responses `instructions`; chat system messages stay in `messages`. */
  system: unknown;
  /** The whole parsed JSON body. */
  body: unknown;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** What the mock did: the behaviour's type. */
  behavior: MockBehavior['type'];
  /** Set when the chaos mode injected a fault into this request: which, and how. */
  chaos?: MockChaosInjection;
  /**
   * Set when `strict` refused the request (a `400 invalid_request_error`): the provider's message
   * naming the unpaired tool block.
   */
  strictRejection?: string;
  receivedAt: number;
  /**
   * Which TCP connection the request came on: 1 for the mock's first, counted from its start
   * (`reset` does not restart it). Requests sharing a number shared a kept-alive connection.
   */
  connection: number;
}

export interface MockProviderOptions {
  /** Default 0 (ephemeral). The server always binds 127.0.0.1. */
  port?: number;
  /** Initial queue. Entries may be bare behaviours. */
  script?: Array<MockScriptEntry | MockBehavior>;
  /** Text for `ok` answers without `text`, and for every request when the queue has no match. */
  defaultReply?: (request: RecordedRequest) => string;
  /** Require this API key; other keys get a provider-shaped 401. */
  requireApiKey?: string;
  /**
   * Seeded random faults for the requests no scripted entry answers (see `MockChaosOptions`).
   * Scripted entries always win; what chaos leaves alone gets the normal answer.
   */
  chaos?: MockChaosOptions;
  /**
   * The demo model answers what nothing else does: asked for the time or to roll dice, it calls
   * `current_time` / `roll_dice` (`mockDemoTools`) when the request offers them, and answers the
   * tool results with a sentence using them; anything else gets the default reply. Deterministic.
   */
  demo?: boolean;
  /**
   * Milliseconds every model request waits before its answer starts (a provider's time to first
   * byte, e.g. for load tests); default 0. `count_tokens` and other paths answer at once.
   */
  latencyMs?: number;
  /**
   * Refuse what the real providers refuse, before the queue is consulted: a request with a
   * `tool_use` / `tool_calls` / `function_call` left without its result, or a result without its
   * call, gets `400 invalid_request_error` in the provider's wire shape (Anthropic's
   * "`tool_use` ids were found without `tool_result` blocks immediately after", OpenAI's
   * "must be followed by tool messages responding to each 'tool_call_id'", Responses' "No tool
   * output found for function call"), recorded as `strictRejection`. Default off.
   */
  strict?: boolean;
}

export interface MockProvider {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Base URL for the `openai` SDK: `<url>/v1`. */
  readonly openaiBaseUrl: string;
  /** Base URL for `@anthropic-ai/sdk` and `ANTHROPIC_BASE_URL`: `<url>`. */
  readonly anthropicBaseUrl: string;
  /** Every request received, in order (count-tokens and unknown paths included). */
  readonly requests: readonly RecordedRequest[];
  /**
   * Resolves with `requests` once at least `count` requests have been received (at once when
   * they already have). Event-driven: wait on this instead of polling. Rejects with the signal's
   * reason when `signal` aborts first.
   */
  waitForRequests(
    count: number,
    options?: { signal?: AbortSignal },
  ): Promise<readonly RecordedRequest[]>;
  /** Append to the queue. */
  enqueue(...entries: Array<MockScriptEntry | MockBehavior>): void;
  /** Queue entries not yet used up. */
  pending(): number;
  /** Clear the queue and the request record; the chaos sequence starts again from its seed. */
  reset(): void;
  /** What the chaos mode injected so far (all zero without `chaos`). */
  chaosStats(): MockChaosStats;
  /** Close the server and every open connection (hanging ones included). Idempotent. */
  close(): Promise<void>;
}
