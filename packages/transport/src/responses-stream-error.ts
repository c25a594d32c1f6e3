import type { ResponsesStreamFailure } from './from-openai-responses-stream';
import type { OpenAISdk } from './openai-client-like';

/**
 * The error thrown for a Responses `error` or `response.failed` event: the SDK's own `APIError`,
 * the same class it throws for a Chat Completions error chunk, so `classifyError` reads its
 * `type` / `code` (e.g. `rate_limit_exceeded`, `server_error`, `overloaded_error`).
 */
export function responsesStreamError(
  sdk: Pick<OpenAISdk, 'APIError'> | undefined,
  failure: ResponsesStreamFailure,
): Error {
  if (sdk === undefined) return new Error(failure.message);
  return new sdk.APIError(undefined, failure, undefined, undefined);
}
