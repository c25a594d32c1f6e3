// Errors in Anthropic's shape (`{ type: 'error', error: { type, message } }`) with the statuses its
// SDK understands: the gateway's own errors on these routes (401, 400, 413, 415, 503) and a call
// that ended without a reply. Never provider text: every message here is our own sentence.
import type { CallOutcome, ErrorKind } from '@keel/spec';
import type { FastifyReply } from 'fastify';
import type { ApiErrorCode, WireErrorRenderer } from '../../http/api-error';

export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error';

export interface AnthropicError {
  status: number;
  type: AnthropicErrorType;
  message: string;
  /** `Retry-After` when waiting helps. */
  retryAfterMs?: number;
}

const GATEWAY_ERROR_TYPES: Record<ApiErrorCode, AnthropicErrorType> = {
  invalid_request: 'invalid_request_error',
  unauthorized: 'authentication_error',
  forbidden: 'permission_error',
  budget_exceeded: 'permission_error',
  rate_limited: 'rate_limit_error',
  not_found: 'not_found_error',
  payload_too_large: 'request_too_large',
  unsupported_media_type: 'invalid_request_error',
  unavailable: 'api_error',
  insufficient_storage: 'api_error',
  storage_unavailable: 'api_error',
  internal: 'api_error',
};

/** The body of an error, as the Messages API sends it. */
export function errorBody(type: AnthropicErrorType, message: string) {
  return { type: 'error', error: { type, message } } as const;
}

/** Sends `error` with its status, and `Retry-After` (seconds, rounded up) when it has a wait. */
export function sendAnthropicError(reply: FastifyReply, error: AnthropicError): FastifyReply {
  if (error.retryAfterMs !== undefined) {
    reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))));
  }
  return reply
    .code(error.status)
    .type('application/json')
    .send(errorBody(error.type, error.message));
}

/** The `wireError` of these routes: the gateway's own errors in Anthropic's shape. */
export const renderAnthropicError: WireErrorRenderer = (reply, error) =>
  reply
    .code(error.status)
    .type('application/json')
    .send(errorBody(GATEWAY_ERROR_TYPES[error.code], error.message));

/** A call that ended without a reply, as the status and error a client's SDK acts on. */
export function outcomeError(outcome: CallOutcome): AnthropicError {
  const retry = outcome.retryAfterMs === undefined ? {} : { retryAfterMs: outcome.retryAfterMs };
  if (outcome.kind === 'aborted') {
    return {
      status: 503,
      type: 'api_error',
      message: 'The gateway is restarting. Please send the request again shortly.',
      retryAfterMs: outcome.retryAfterMs ?? 5_000,
    };
  }
  return { ...kindError(outcome.errorKind ?? 'unknown'), ...retry };
}

/** What a failure of `kind` is for the client, before the first byte. */
export function kindError(kind: ErrorKind): AnthropicError {
  switch (kind) {
    case 'rate_limit':
      return {
        status: 429,
        type: 'rate_limit_error',
        message: 'Every model of this route is rate limited. Retry after the wait given.',
      };
    case 'overloaded':
      return {
        status: 529,
        type: 'overloaded_error',
        message: 'Every model of this route is overloaded. Retry after the wait given.',
      };
    case 'invalid_request':
      return {
        status: 400,
        type: 'invalid_request_error',
        message: 'The model refused the request as invalid.',
      };
    case 'context_overflow':
      return {
        status: 400,
        type: 'invalid_request_error',
        message: 'The conversation is too long for every model of this route.',
      };
    case 'content_policy':
      return {
        status: 400,
        type: 'invalid_request_error',
        message: 'The request was refused by the provider’s content policy.',
      };
    case 'storage':
      return {
        status: 503,
        type: 'api_error',
        message: 'The gateway could not store this request. Please try again later.',
      };
    case 'timeout':
    case 'connection':
    case 'provider_abort':
    case 'server_error':
      return {
        status: 503,
        type: 'api_error',
        message: 'No model of this route answered. Please try again.',
      };
    case 'auth':
    case 'billing':
    case 'model_not_found':
    case 'unknown':
    case 'caller_abort':
    case 'session_takeover':
    case 'coordination':
      return {
        status: 502,
        type: 'api_error',
        message: 'The upstream provider failed. Please try again later.',
      };
    default: {
      const unexpected: never = kind;
      return unexpected;
    }
  }
}

/**
 * The in-band `event: error` of a live stream that failed after its first byte:
 * `overloaded_error` when waiting helps, else `api_error`.
 */
export function streamErrorBody(kind: ErrorKind | 'switch_model' | undefined) {
  return kind === 'overloaded' || kind === 'rate_limit'
    ? errorBody(
        'overloaded_error',
        'The model became unavailable mid-answer; the answer is incomplete.',
      )
    : errorBody(
        'api_error',
        'The answer failed mid-stream and is incomplete. Please send the request again.',
      );
}
