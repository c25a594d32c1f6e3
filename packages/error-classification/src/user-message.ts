import type { ErrorClassification } from './error-classification';
import { type ErrorKind, isErrorKind } from './error-kind';

const USER_MESSAGES: { readonly [K in ErrorKind]: string } = Object.freeze({
  caller_abort: 'The request was stopped.',
  provider_abort: 'The model provider ended the request early. Please try again.',
  connection: 'Could not reach the model provider. Please try again in a moment.',
  timeout: 'The model provider took too long to answer. Please try again.',
  rate_limit: 'The model provider is limiting requests right now. Please try again shortly.',
  overloaded: 'The model is overloaded right now. Please try again in a moment.',
  server_error: 'The model provider had an internal error. Please try again.',
  auth: 'The model provider rejected the credentials. Please check the API key configuration.',
  billing: 'The model provider account is out of credit or quota. Please check billing.',
  context_overflow: 'The conversation is too long for the model. Please start a new session.',
  invalid_request: 'The model provider could not process this request.',
  model_not_found: 'The configured model is not available.',
  content_policy: 'The model provider declined this request under its content policy.',
  session_takeover:
    'This session changed while your message was being answered. Please send your message again.',
  coordination: 'This session is busy with another request. Please try again shortly.',
  storage:
    'Your message could not be stored, so it was not answered. The storage is full or unavailable; please try again later.',
  unknown: 'Something went wrong while contacting the model provider.',
});

/**
 * Fixed, safe copy for end users per kind (CWE-209): it never contains provider text, codes or
 * anything else from the error. Anything that is not a kind gets the `unknown` copy.
 */
export function userMessage(classification: Pick<ErrorClassification, 'kind'>): string {
  const kind: unknown = classification?.kind;
  // Only a kind is looked up, so `"constructor"` or `"__proto__"` can never reach the table.
  return isErrorKind(kind) ? USER_MESSAGES[kind] : USER_MESSAGES.unknown;
}
