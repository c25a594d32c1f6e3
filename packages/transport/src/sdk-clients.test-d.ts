/**
 * Type test (checked by `tsc --noEmit`): the official SDKs fit the structural types that
 * `@keel/transport` declares instead of importing theirs, and the bodies we build are bodies the
 * SDKs accept. If an SDK release drifts from what the transport relies on, this file stops
 * compiling.
 */
import type * as AnthropicModule from '@anthropic-ai/sdk';
import type { Anthropic } from '@anthropic-ai/sdk';
import type {
  Message,
  MessageCreateParamsNonStreaming,
  MessageCreateParamsStreaming,
  RawMessageStreamEvent,
} from '@anthropic-ai/sdk/resources/messages';
import type * as OpenAIModule from 'openai';
import type { OpenAI } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions';
import type {
  ResponseCreateParamsStreaming,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import type * as OpenAI7Module from 'openai7';
import type { OpenAI as OpenAI7 } from 'openai7';
import type {
  ChatCompletion as ChatCompletion7,
  ChatCompletionChunk as ChatCompletionChunk7,
  ChatCompletionCreateParamsNonStreaming as ChatCompletionCreateParamsNonStreaming7,
  ChatCompletionCreateParamsStreaming as ChatCompletionCreateParamsStreaming7,
} from 'openai7/resources/chat/completions';
import type {
  ResponseCreateParamsStreaming as ResponseCreateParamsStreaming7,
  ResponseStreamEvent as ResponseStreamEvent7,
} from 'openai7/resources/responses/responses';
import type { AnthropicClientLike, AnthropicSdk } from './anthropic-client-like';
import type { AnthropicMessagesBody, AnthropicMessagesWholeBody } from './anthropic-messages-body';
import type { AnthropicMessage } from './from-anthropic-message';
import type { AnthropicMessagesEvent } from './from-anthropic-messages-stream';
import type { OpenAIChatCompletion } from './from-openai-chat-completion';
import type { OpenAIChatChunk } from './from-openai-chat-stream';
import type { OpenAIResponsesEvent } from './from-openai-responses-stream';
import type { OpenAIChatBody, OpenAIChatWholeBody } from './openai-chat-body';
import type { OpenAIClientLike, OpenAISdk } from './openai-client-like';
import type { OpenAIResponsesBody } from './openai-responses-body';

export function openAIModuleIsAnOpenAISdk(module: typeof OpenAIModule): OpenAISdk {
  return module;
}

export function openAIClientIsAnOpenAIClientLike(client: OpenAI): OpenAIClientLike {
  return client;
}

export function anthropicModuleIsAnAnthropicSdk(module: typeof AnthropicModule): AnthropicSdk {
  return module;
}

export function anthropicClientIsAnAnthropicClientLike(client: Anthropic): AnthropicClientLike {
  return client;
}

export function chatBodyIsAStreamingChatBody(
  body: OpenAIChatBody,
): ChatCompletionCreateParamsStreaming {
  return body;
}

export function responsesBodyIsAStreamingResponsesBody(
  body: OpenAIResponsesBody,
): ResponseCreateParamsStreaming {
  return body;
}

export function messagesBodyIsAStreamingMessagesBody(
  body: AnthropicMessagesBody,
): MessageCreateParamsStreaming {
  return body;
}

export function chatChunkIsReadable(chunk: ChatCompletionChunk): OpenAIChatChunk {
  return chunk;
}

export function responsesEventIsReadable(event: ResponseStreamEvent): OpenAIResponsesEvent {
  return event;
}

export function messagesEventIsReadable(event: RawMessageStreamEvent): AnthropicMessagesEvent {
  return event;
}

// openai 7 (npm's current major, installed as the alias `openai7`) fits the same structural types.
export function openAI7ModuleIsAnOpenAISdk(module: typeof OpenAI7Module): OpenAISdk {
  return module;
}

export function openAI7ClientIsAnOpenAIClientLike(client: OpenAI7): OpenAIClientLike {
  return client;
}

export function chatBodyIsAStreamingChatBody7(
  body: OpenAIChatBody,
): ChatCompletionCreateParamsStreaming7 {
  return body;
}

export function responsesBodyIsAStreamingResponsesBody7(
  body: OpenAIResponsesBody,
): ResponseCreateParamsStreaming7 {
  return body;
}

export function chatChunkIsReadable7(chunk: ChatCompletionChunk7): OpenAIChatChunk {
  return chunk;
}

export function responsesEventIsReadable7(event: ResponseStreamEvent7): OpenAIResponsesEvent {
  return event;
}

// `delivery: 'whole'`: the non-streamed bodies are bodies the SDKs accept, their answers readable.
export function chatWholeBodyIsANonStreamingChatBody(
  body: OpenAIChatWholeBody,
): ChatCompletionCreateParamsNonStreaming {
  return body;
}

export function chatWholeBodyIsANonStreamingChatBody7(
  body: OpenAIChatWholeBody,
): ChatCompletionCreateParamsNonStreaming7 {
  return body;
}

export function messagesWholeBodyIsANonStreamingMessagesBody(
  body: AnthropicMessagesWholeBody,
): MessageCreateParamsNonStreaming {
  return body;
}

export function chatCompletionIsReadable(completion: ChatCompletion): OpenAIChatCompletion {
  return completion;
}

export function chatCompletionIsReadable7(completion: ChatCompletion7): OpenAIChatCompletion {
  return completion;
}

export function messageIsReadable(message: Message): AnthropicMessage {
  return message;
}
