/**
 * What `@keel/transport` adds to the spec's model port. The shapes every package shares (the
 * request, its messages and content blocks, the event union, the call options) are `@keel/spec`'s;
 * conversions to and from each wire format live next to the transport that needs them.
 */
import type { ErrorKind, ModelPort } from '@keel/spec';

export type TransportApi = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'claude-cli';

/** Sanitized request facts handed to lifecycle hooks: never an API key. */
export interface RequestInfo {
  provider: string;
  api: TransportApi;
  model: string;
  /** Base URL with credentials and query string removed. */
  url: string;
  attemptId: string;
}

/**
 * Request lifecycle hooks. Each runs synchronously in the call path and must not throw: a
 * throwing hook is caught and ignored so observation never breaks a call.
 */
export interface TransportHooks {
  /** Before the request is sent. */
  onRequestStart?(context: RequestInfo): void;
  /** After the stream finished successfully (terminal event seen). */
  onResponse?(context: RequestInfo & { status: number | undefined; elapsedMs: number }): void;
  /** After the call failed; `errorKind` is `classifyError(error).kind`. */
  onRequestError?(
    context: RequestInfo & { status: number | undefined; elapsedMs: number; errorKind: ErrorKind },
  ): void;
}

/**
 * A model port (`@keel/spec`'s `ModelPort`, version `v1`) over one wire API. `capabilities` says
 * whether the model's runtime runs its own tools and binds sessions (both only for `claude-cli`).
 */
export interface Transport extends ModelPort {
  readonly api: TransportApi;
}
