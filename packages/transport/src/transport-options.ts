import type { AnthropicClientLike, AnthropicSdk } from './anthropic-client-like';
import type { FetchLike } from './http-fetch';
import type { SdkLoader } from './load-sdk';
import type { OpenAIClientLike, OpenAISdk } from './openai-client-like';
import type { MaxTokensField } from './to-openai-chat';
import type { TransportHooks } from './types';

/** Options shared by every SDK-backed API. */
export interface SdkTransportOptionsBase {
  /** Provider id for hooks and errors, e.g. `openai`, `ollama`, `openrouter`. Defaults to the api's vendor. */
  provider?: string;
  /** Never reaches a hook, a log or an error message. Defaults to the SDK's environment variable. */
  apiKey?: string;
  /** Any OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter, Groq) with `openai-chat`. */
  baseUrl?: string;
  /** Model used when a request does not name one. */
  model: string;
  /** Output-token limit used when a request does not set one. */
  maxTokens?: number;
  /** SDK-level retries per call (default 2). A per-call option overrides it; a retry pin overrides both. */
  maxRetries?: number;
  /** Whole-attempt timeout in ms (per call overridable). */
  timeoutMs?: number;
  /** Time allowed until the first event, in ms (per call overridable). */
  firstTokenTimeoutMs?: number;
  /** Longest allowed silence between two chunks once the response started, in ms. */
  stallTimeoutMs?: number;
  hooks?: TransportHooks;
  defaultHeaders?: Record<string, string>;
  /**
   * The `fetch` a client the transport builds sends its requests with. Default: `node:http(s)`
   * over keep-alive agents (about a millisecond less per request than Node's `fetch`), falling
   * back to the global `fetch` for what it does not send itself and whenever an undici global
   * dispatcher is installed (`setGlobalDispatcher`, e.g. a proxy agent). Pass `fetch` to use
   * Node's own. Ignored with `client`.
   */
  fetch?: FetchLike;
}

export interface OpenAIChatTransportOptions extends SdkTransportOptionsBase {
  api: 'openai-chat';
  /** A ready client (an `OpenAI` instance); `apiKey`, `baseUrl` and `defaultHeaders` are then ignored. */
  client?: OpenAIClientLike;
  /** Loads the `openai` module (default: `import('openai')`). */
  loadSdk?: SdkLoader<OpenAISdk>;
  /** Default `max_completion_tokens`; older OpenAI-compatible servers may need `max_tokens`. */
  maxTokensField?: MaxTokensField;
  /** Send `stream_options: { include_usage: true }` (default true); turn off for servers that reject it. */
  includeUsage?: boolean;
}

export interface OpenAIResponsesTransportOptions extends SdkTransportOptionsBase {
  api: 'openai-responses';
  client?: OpenAIClientLike;
  loadSdk?: SdkLoader<OpenAISdk>;
}

export interface AnthropicMessagesTransportOptions extends SdkTransportOptionsBase {
  api: 'anthropic-messages';
  /** A ready client (an `Anthropic` instance); `apiKey`, `baseUrl` and `defaultHeaders` are then ignored. */
  client?: AnthropicClientLike;
  /** Loads the `@anthropic-ai/sdk` module (default: `import('@anthropic-ai/sdk')`). */
  loadSdk?: SdkLoader<AnthropicSdk>;
}
