/**
 * `classifyError` for what AI SDK models throw or stream: an `APICallError` keeps its status,
 * headers and body under names the classifier does not read (`statusCode`, `responseHeaders`,
 * `responseBody`), so they are handed over under the names it does.
 */
import { APICallError } from '@ai-sdk/provider';
import { classifyError, type ErrorClassification } from '@keel/error-classification';

export function classifyModelError(
  error: unknown,
  signal: AbortSignal | undefined,
): ErrorClassification {
  const options = signal === undefined ? {} : { signal };
  if (!APICallError.isInstance(error)) return classifyError(error, options);
  return classifyError(
    {
      name: error.name,
      message: error.message,
      ...(error.statusCode === undefined ? {} : { status: error.statusCode }),
      ...(error.responseHeaders === undefined ? {} : { headers: error.responseHeaders }),
      ...(error.data === undefined ? {} : { error: error.data }),
      ...(error.responseBody === undefined ? {} : { body: error.responseBody }),
      ...(error.cause === undefined ? {} : { cause: error.cause }),
    },
    options,
  );
}
