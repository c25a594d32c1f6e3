/**
 * The slice of an official SDK's request machinery the transport uses, declared structurally so
 * that `@keel/transport`'s types never import `openai` or `@anthropic-ai/sdk` (either may be
 * missing). The SDKs' own types fit; `sdk-clients.test-d.ts` checks that they do.
 */
import type { FetchLike } from './http-fetch';

/** Per-request options forwarded to the SDK. */
export interface SdkRequestOptions {
  signal?: AbortSignal;
  maxRetries?: number;
  /** The SDK's own request timeout in ms. */
  timeout?: number;
}

/** What a streaming `create(...)` call returns (the SDKs' `APIPromise<Stream<Chunk>>` fits). */
export interface StreamingCall<Chunk> {
  withResponse(): Promise<{ data: AsyncIterable<Chunk>; response: { status: number } }>;
}

/** What a non-streamed `create(...)` call returns (the SDKs' `APIPromise<Answer>` fits). */
export interface WholeCall<Answer> {
  withResponse(): Promise<{ data: Answer; response: { status: number } }>;
}

/** The constructor options the transport passes when it builds a client itself. */
export interface SdkClientOptions {
  apiKey?: string;
  baseURL?: string;
  defaultHeaders?: Record<string, string>;
  maxRetries?: number;
  /** `RequestInit` fields for every `fetch` the client makes. */
  fetchOptions?: { window?: null; redirect?: 'error' | 'follow' | 'manual' };
  /** The `fetch` the client makes its requests with. */
  fetch?: FetchLike;
}
