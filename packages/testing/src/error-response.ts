import type { MockApi, MockBehavior } from './mock-provider-types';

type HttpErrorBehavior = Extract<MockBehavior, { type: 'http-error' }>;

/** A complete HTTP error answer. */
export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  /** Serialized body. */
  body: string;
}

const anthropicTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const openaiTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'invalid_request_error',
  404: 'invalid_request_error',
  429: 'requests',
};

const defaultMessages: Record<number, string> = {
  400: 'Invalid request',
  401: 'invalid x-api-key',
  402: 'Payment required',
  403: 'Permission denied',
  404: 'Not found',
  408: 'Request timed out',
  413: 'Request too large',
  429: 'Rate limited',
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
  529: 'Overloaded',
};

/** The provider's default error type for a status. */
export function defaultErrorType(api: MockApi, status: number): string {
  if (api === 'anthropic-messages') {
    return anthropicTypes[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  }
  return openaiTypes[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
}

/** The mock's request id header for an api. */
export function requestIdHeader(api: MockApi | 'other', requestId: string): Record<string, string> {
  return api === 'anthropic-messages' ? { 'request-id': requestId } : { 'x-request-id': requestId };
}

/**
 * Render an `http-error` behaviour for one api: a provider-shaped body (unless the behaviour
 * gives its own), the provider's request id header, and the behaviour's headers.
 */
export function buildErrorResponse(
  api: MockApi,
  behavior: HttpErrorBehavior,
  requestId: string,
): ErrorResponse {
  const override = api === 'anthropic-messages' ? undefined : behavior.openai;
  const status = override?.status ?? behavior.status;
  const errorType = override?.errorType ?? behavior.errorType ?? defaultErrorType(api, status);
  const message = override?.message ?? behavior.message ?? defaultMessages[status] ?? 'Error';
  const code = override?.code ?? behavior.code ?? null;
  let body: string;
  if (behavior.body !== undefined) {
    body = typeof behavior.body === 'string' ? behavior.body : JSON.stringify(behavior.body);
  } else if (api === 'anthropic-messages') {
    body = JSON.stringify({
      type: 'error',
      error: { type: errorType, message },
      request_id: requestId,
    });
  } else {
    body = JSON.stringify({ error: { message, type: errorType, param: null, code } });
  }
  return {
    status,
    headers: {
      'content-type': 'application/json',
      ...requestIdHeader(api, requestId),
      ...behavior.headers,
    },
    body,
  };
}
