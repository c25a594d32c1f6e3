/**
 * The model-call port the built-in summarizer uses. A `@keel/transport` `Transport` satisfies it
 * structurally; so does any object with a compatible `stream` method.
 */

export interface CompactionModelMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface CompactionModelRequest {
  /** Falls back to the port's configured model. */
  model?: string;
  system?: string;
  messages: CompactionModelMessage[];
  maxTokens?: number;
  temperature?: number;
}

/**
 * The events the summarizer reads: `text-delta` (with `text`) and `finish` (with `reason`).
 * Every other event type is ignored, so richer event unions are accepted as they are.
 */
export interface CompactionModelEvent {
  readonly type: string;
  readonly text?: string;
  readonly reason?: string;
}

export interface CompactionModelPort {
  /** One model call as a stream of events; errors are thrown from the iterator. */
  stream(
    request: CompactionModelRequest,
    options?: { signal?: AbortSignal },
  ): AsyncIterable<CompactionModelEvent>;
}
