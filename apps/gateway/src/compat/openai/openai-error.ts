// Errors in OpenAI's own shape (`{ error: { message, type, param, code } }`) with the statuses its
// SDKs understand, so a client's retry logic and error classes work unchanged against Keel.
import type { CallOutcome, ErrorKind } from '@keel/spec';
import type { FastifyReply } from 'fastify';
import type { ApiErrorCode, WireErrorRenderer } from '../../http/api-error';

/** The body of an OpenAI API error. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** An error ready to send: status, body and headers (`Retry-After` when a wait is known). */
export interface OpenAIError {
  status: number;
  body: OpenAIErrorBody;
  headers: Record<string, string>;
}

export function openAIErrorBody(
  message: string,
  type: string,
  options: { code?: string | null; param?: string | null } = {},
): OpenAIErrorBody {
  return { error: { message, type, param: options.param ?? null, code: options.code ?? null } };
}

const TYPE_OF_CODE: Record<ApiErrorCode, [type: string, code: string | null]> = {
  invalid_request: ['invalid_request_error', null],
  unauthorized: ['authentication_error', 'invalid_api_key'],
  forbidden: ['permission_error', 'forbidden'],
  budget_exceeded: ['insufficient_quota', 'budget_exceeded'],
  rate_limited: ['rate_limit_error', 'rate_limit_exceeded'],
  not_found: ['invalid_request_error', 'not_found'],
  payload_too_large: ['invalid_request_error', 'payload_too_large'],
  unsupported_media_type: ['invalid_request_error', 'unsupported_media_type'],
  unavailable: ['server_error', 'unavailable'],
  insufficient_storage: ['server_error', 'insufficient_storage'],
  storage_unavailable: ['server_error', 'unavailable'],
  internal: ['server_error', null],
};

/** The gateway's own errors on the OpenAI routes (token, bad JSON, body limit, shutdown). */
export const renderOpenAIError: WireErrorRenderer = (reply, { code, status, message }) => {
  const [type, errorCode] = TYPE_OF_CODE[code];
  return reply
    .code(status)
    .type('application/json')
    .send(openAIErrorBody(message, type, { code: errorCode }));
};

export function sendOpenAIError(reply: FastifyReply, error: OpenAIError): FastifyReply {
  return reply.code(error.status).headers(error.headers).type('application/json').send(error.body);
}

/** `Retry-After` in whole seconds, rounded up (at least 1). */
export function retryAfter(
  ms: number | undefined,
  fallbackSeconds?: number,
): Record<string, string> {
  if (ms === undefined) {
    return fallbackSeconds === undefined ? {} : { 'retry-after': String(fallbackSeconds) };
  }
  return { 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))) };
}

/** Seconds a client waits after a shutdown's `503` when nothing better is known. */
const RESTART_WAIT_SECONDS = 5;

/**
 * A call that did not answer, as the client's SDK should see it: cooling candidates are `429` /
 * `503` with `Retry-After`, a request the models refused is `400`, an upstream failure (the
 * provider's own auth or billing included: the client's token is fine) is `502`, a shutdown `503`.
 * The message is Keel's own safe copy, never provider text.
 */
export function outcomeError(outcome: CallOutcome, hint?: string): OpenAIError {
  if (outcome.kind === 'aborted') {
    return {
      status: 503,
      body: openAIErrorBody(outcome.text, 'server_error', { code: 'unavailable' }),
      headers: retryAfter(outcome.retryAfterMs, RESTART_WAIT_SECONDS),
    };
  }
  const kind: ErrorKind = outcome.errorKind ?? 'unknown';
  const [status, type, code] = statusOf(kind);
  const message = status === 400 && hint !== undefined ? `${outcome.text} ${hint}` : outcome.text;
  return {
    status,
    body: openAIErrorBody(message, type, { code }),
    headers: status === 429 || status === 503 ? retryAfter(outcome.retryAfterMs) : {},
  };
}

function statusOf(kind: ErrorKind): [status: number, type: string, code: string | null] {
  switch (kind) {
    case 'rate_limit':
      return [429, 'rate_limit_error', 'rate_limit_exceeded'];
    case 'overloaded':
      return [503, 'server_error', 'overloaded'];
    case 'invalid_request':
      return [400, 'invalid_request_error', null];
    case 'context_overflow':
      return [400, 'invalid_request_error', 'context_length_exceeded'];
    case 'content_policy':
      return [400, 'invalid_request_error', 'content_policy_violation'];
    case 'caller_abort':
    case 'session_takeover':
    case 'coordination':
    case 'storage':
      return [503, 'server_error', 'unavailable'];
    case 'auth':
    case 'billing':
    case 'model_not_found':
    case 'provider_abort':
    case 'connection':
    case 'timeout':
    case 'server_error':
    case 'unknown':
      return [502, 'server_error', 'upstream_error'];
    default: {
      const unexpected: never = kind;
      return [502, 'server_error', String(unexpected)];
    }
  }
}
