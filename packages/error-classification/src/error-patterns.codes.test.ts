import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error';

/*
 * Every documented code decides its kind on its own: the error carries the code and wording that
 * says nothing, and no status, so only the code list can decide. The classification must also
 * report that code, so a code dropped from its list fails here even if a later rule guesses right.
 */
const CODE_KINDS: ReadonlyArray<readonly [code: string, kind: string]> = [
  ['insufficient_quota', 'billing'],
  ['billing_hard_limit_reached', 'billing'],
  ['billing_not_active', 'billing'],
  ['payment_required', 'billing'],
  ['PaymentRequiredError', 'billing'],
  ['insufficient_balance', 'billing'],
  ['content_policy_violation', 'content_policy'],
  ['ResponsibleAIPolicyViolation', 'content_policy'],
  ['invalid_prompt', 'content_policy'],
  ['SAFETY', 'content_policy'],
  ['PROHIBITED_CONTENT', 'content_policy'],
  ['context_length_exceeded', 'context_overflow'],
  ['exceed_context_size_error', 'context_overflow'],
  ['string_too_long', 'context_overflow'],
  ['model_context_window_exceeded', 'context_overflow'],
  ['model_decommissioned', 'model_not_found'],
  ['NotFoundError', 'model_not_found'],
  ['ResourceNotFoundException', 'model_not_found'],
  ['NOT_FOUND', 'model_not_found'],
  ['OverloadedError', 'overloaded'],
  ['server_overloaded', 'overloaded'],
  ['RateLimitError', 'rate_limit'],
  ['ServiceQuotaExceededException', 'rate_limit'],
  ['TooManyRequestsException', 'rate_limit'],
  ['too_many_requests', 'rate_limit'],
  ['AuthenticationError', 'auth'],
  ['PermissionDeniedError', 'auth'],
  ['PERMISSION_DENIED', 'auth'],
  ['UNAUTHENTICATED', 'auth'],
  ['API_KEY_INVALID', 'auth'],
  ['UnrecognizedClientException', 'auth'],
  ['ExpiredTokenException', 'auth'],
  ['unsupported_country_region_territory', 'auth'],
  ['ETIMEDOUT', 'timeout'],
  ['ESOCKETTIMEDOUT', 'timeout'],
  ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
  ['TimeoutError', 'timeout'],
  ['APIConnectionTimeoutError', 'timeout'],
  ['ConnectTimeoutError', 'timeout'],
  ['HeadersTimeoutError', 'timeout'],
  ['BodyTimeoutError', 'timeout'],
  ['RequestTimeoutError', 'timeout'],
  ['AbortError', 'provider_abort'],
  ['APIUserAbortError', 'provider_abort'],
  ['RequestAbortedError', 'provider_abort'],
  ['ECONNABORTED', 'connection'],
  ['EHOSTDOWN', 'connection'],
  ['ENETDOWN', 'connection'],
  ['ENETRESET', 'connection'],
  ['UND_ERR_CLOSED', 'connection'],
  ['UND_ERR_DESTROYED', 'connection'],
  ['UND_ERR_CONNECT', 'connection'],
  ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'connection'],
  ['ERR_STREAM_PREMATURE_CLOSE', 'connection'],
  ['APIConnectionError', 'connection'],
  ['SocketError', 'connection'],
  ['internal_error', 'server_error'],
  ['internal_server_error', 'server_error'],
  ['InternalServerError', 'server_error'],
  ['INTERNAL', 'server_error'],
  ['UNAVAILABLE', 'server_error'],
  ['ServiceUnavailableException', 'server_error'],
  ['InternalServerException', 'server_error'],
  ['ModelErrorException', 'server_error'],
  ['ModelStreamErrorException', 'server_error'],
  ['invalid_request', 'invalid_request'],
  ['INVALID_ARGUMENT', 'invalid_request'],
  ['FAILED_PRECONDITION', 'invalid_request'],
  ['ValidationException', 'invalid_request'],
  ['BadRequestError', 'invalid_request'],
  ['UnprocessableEntityError', 'invalid_request'],
];

describe('each documented code decides its kind and is reported', () => {
  it.each(CODE_KINDS)('%s → %s', (code, kind) => {
    const error = { code, message: 'the request could not be completed' };
    expect(classifyError(error)).toMatchObject({ kind, code });
  });
});
