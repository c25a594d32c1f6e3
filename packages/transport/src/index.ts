export type {
  ContentBlock,
  Message,
  ModelCallOptions,
  ModelCapabilities,
  ModelEvent,
  ModelPort,
  ModelRequest,
  ResponseFormat,
  ToolChoice,
  ToolDefinition,
} from '@keel/spec';
export type { AnthropicClientLike } from './anthropic-client-like';
export type {
  BindingStore,
  ClaudeCliErrorOptions,
  ClaudeCliReseedOptions,
  ClaudeCliTransportOptions,
  CliBinding,
  FileBindingStoreOptions,
  OrphanPolicy,
  ReseedContext,
  ReseedLoadContext,
} from './claude-cli';
export {
  ClaudeCliError,
  createClaudeCliTransport,
  createFileBindingStore,
  createMemoryBindingStore,
} from './claude-cli';
export {
  type ClaudeCliApiOptions,
  createTransport,
  type TransportOptions,
} from './create-transport';
export type { FetchLike } from './http-fetch';
export type { SdkLoader } from './load-sdk';
export type { OpenAIClientLike } from './openai-client-like';
export type { MaxTokensField } from './to-openai-chat';
export {
  IncompleteStreamError,
  MalformedResponseError,
  MissingSdkError,
  type MissingSdkErrorOptions,
  type TimeoutKind,
  TransportAbortError,
  TransportError,
  type TransportErrorKind,
  type TransportErrorOptions,
  TransportTimeoutError,
  type TransportTimeoutErrorOptions,
  UnsupportedRequestError,
} from './transport-error';
export type {
  AnthropicMessagesTransportOptions,
  OpenAIChatTransportOptions,
  OpenAIResponsesTransportOptions,
  SdkTransportOptionsBase,
} from './transport-options';
export type { RequestInfo, Transport, TransportApi, TransportHooks } from './types';
export { withRetryPin } from './with-retry-pin';
