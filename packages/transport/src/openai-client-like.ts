import type { OpenAIChatCompletion } from './from-openai-chat-completion';
import type { OpenAIChatChunk } from './from-openai-chat-stream';
import type { OpenAIResponsesEvent, ResponsesStreamFailure } from './from-openai-responses-stream';
import type { OpenAIChatBody, OpenAIChatWholeBody } from './openai-chat-body';
import type { OpenAIResponsesBody } from './openai-responses-body';
import type {
  SdkClientOptions,
  SdkRequestOptions,
  StreamingCall,
  WholeCall,
} from './streaming-call';

/** What `@keel/transport` uses of an `openai` client (an `OpenAI` instance fits). */
export interface OpenAIClientLike {
  readonly baseURL?: string;
  readonly apiKey?: string | null;
  readonly chat: {
    readonly completions: {
      create(body: OpenAIChatBody, options?: SdkRequestOptions): StreamingCall<OpenAIChatChunk>;
      create(
        body: OpenAIChatWholeBody,
        options?: SdkRequestOptions,
      ): WholeCall<OpenAIChatCompletion>;
    };
  };
  readonly responses: {
    create(
      body: OpenAIResponsesBody,
      options?: SdkRequestOptions,
    ): StreamingCall<OpenAIResponsesEvent>;
  };
}

/** What `@keel/transport` uses of the `openai` module (`await import('openai')` fits). */
export interface OpenAISdk {
  OpenAI: new (options: SdkClientOptions) => OpenAIClientLike;
  /** Built for an in-stream Responses failure, like the error the SDK throws for chat. */
  APIError: new (
    status: undefined,
    error: ResponsesStreamFailure,
    message: undefined,
    headers: undefined,
  ) => Error;
}
