import type { AnthropicMessagesBody, AnthropicMessagesWholeBody } from './anthropic-messages-body';
import type { AnthropicMessage } from './from-anthropic-message';
import type { AnthropicMessagesEvent } from './from-anthropic-messages-stream';
import type {
  SdkClientOptions,
  SdkRequestOptions,
  StreamingCall,
  WholeCall,
} from './streaming-call';

/** What `@keel/transport` uses of an `@anthropic-ai/sdk` client (an `Anthropic` instance fits). */
export interface AnthropicClientLike {
  readonly baseURL?: string;
  readonly apiKey?: string | null;
  readonly messages: {
    create(
      body: AnthropicMessagesBody,
      options?: SdkRequestOptions,
    ): StreamingCall<AnthropicMessagesEvent>;
    create(
      body: AnthropicMessagesWholeBody,
      options?: SdkRequestOptions,
    ): WholeCall<AnthropicMessage>;
  };
}

/** What `@keel/transport` uses of the `@anthropic-ai/sdk` module (`await import(...)` fits). */
export interface AnthropicSdk {
  Anthropic: new (options: SdkClientOptions) => AnthropicClientLike;
}
