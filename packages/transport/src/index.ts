export type { AnthropicClientLike, AnthropicSdk } from './anthropic-client-like';
export type {
  AnthropicContentBlockParam,
  AnthropicMessageParam,
  AnthropicMessagesBody,
  AnthropicTool,
} from './anthropic-messages-body';
export type {
  BindingFile,
  BindingStore,
  BuildCliPromptOptions,
  ClaudeCliErrorOptions,
  ClaudeCliReseedOptions,
  ClaudeCliTransportOptions,
  CliBinding,
  CliErrorFacts,
  FileBindingStoreOptions,
  ReseedContext,
  ReseedLoadContext,
} from './claude-cli';
export {
  BINDING_FILE_VERSION,
  buildCliPrompt,
  ClaudeCliError,
  cliErrorKind,
  createClaudeCliTransport,
  createFileBindingStore,
  createMemoryBindingStore,
  migrateBindingFile,
  omittedMarker,
} from './claude-cli';
export {
  type ClaudeCliApiOptions,
  createTransport,
  type TransportOptions,
} from './create-transport';
export {
  type AnthropicMessagesEvent,
  fromAnthropicMessagesStream,
} from './from-anthropic-messages-stream';
export { fromOpenAIChatStream, type OpenAIChatChunk } from './from-openai-chat-stream';
export {
  type FromOpenAIResponsesStreamOptions,
  fromOpenAIResponsesStream,
  type OpenAIResponsesEvent,
  type ResponsesStreamFailure,
} from './from-openai-responses-stream';
export type { SdkLoader } from './load-sdk';
export type {
  OpenAIChatBody,
  OpenAIChatMessage,
  OpenAIChatTextPart,
  OpenAIChatTool,
  OpenAIChatToolCall,
} from './openai-chat-body';
export type { OpenAIClientLike, OpenAISdk } from './openai-client-like';
export type {
  OpenAIResponsesBody,
  OpenAIResponsesInputItem,
  OpenAIResponsesTool,
} from './openai-responses-body';
export type { SdkClientOptions, SdkRequestOptions, StreamingCall } from './streaming-call';
export {
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  type ToAnthropicMessagesOptions,
  toAnthropicMessages,
} from './to-anthropic-messages';
export { type MaxTokensField, type ToOpenAIChatOptions, toOpenAIChat } from './to-openai-chat';
export { type ToOpenAIResponsesOptions, toOpenAIResponses } from './to-openai-responses';
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
export type {
  BindingInvalidReason,
  CallOptions,
  ContentBlock,
  FinishReason,
  Message,
  MessageRole,
  ModelRequest,
  RequestInfo,
  ToolDefinition,
  Transport,
  TransportApi,
  TransportEvent,
  TransportHooks,
} from './types';
export { retryPinOf, withRetryPin } from './with-retry-pin';
