import type { AnthropicMessagesBody } from './anthropic-messages-body';
import type { AnthropicMessagesEvent } from './from-anthropic-messages-stream';
import type { SdkClientOptions, SdkRequestOptions, StreamingCall } from './streaming-call';

/** What `@keel/transport` uses of an `@anthropic-ai/sdk` client (an `Anthropic` instance fits). */
export interface AnthropicClientLike {
  readonly baseURL?: string;
  readonly apiKey?: string | null;
  readonly messages: {
    create(
      body: AnthropicMessagesBody,
      options?: SdkRequestOptions,
    ): StreamingCall<AnthropicMessagesEvent>;
  };
}

/** What `@keel/transport` uses of the `@anthropic-ai/sdk` module (`await import(...)` fits). */
export interface AnthropicSdk {
  Anthropic: new (options: SdkClientOptions) => AnthropicClientLike;
}
