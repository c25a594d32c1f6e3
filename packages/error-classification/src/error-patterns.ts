import { codeSet } from './rule-helpers';

/*
 * Codes and wording per kind. Codes match `code`, `type`, Google `status`, Anthropic
 * `details.error_code`, Azure `innererror.code`, error names and class names, case-insensitively.
 * Wording matches the lower-cased messages. Sources are in test/__fixtures__/.
 */

export const BILLING_CODES = codeSet(
  'insufficient_quota',
  'billing_error',
  'billing_hard_limit_reached',
  'billing_not_active',
  'enforced_spend_limit_reached',
  'payment_required',
  'PaymentRequiredError',
  'insufficient_balance',
);

export const BILLING_TEXT =
  /credit balance is too low|exceeded your current quota|insufficient[ _](?:quota|balance|credits|funds)|requires more credits|can only afford|api usage limits|spend(?:ing)? limit|billing hard limit|payment required|out of credits|account is not active|check your plan and billing/;

export const CONTENT_POLICY_CODES = codeSet(
  'content_filter',
  'content_policy_violation',
  'ResponsibleAIPolicyViolation',
  'invalid_prompt',
  'SAFETY',
  'PROHIBITED_CONTENT',
  'moderation_blocked',
);

export const CONTENT_POLICY_TEXT =
  /content[ _-]?filter|content management policy|content[ _]polic(?:y|ies)|safety system|violating our usage polic|input was flagged|requires moderation|blocked due to safety|prohibited_content|responsibleaipolicyviolation/;

/** Server-side conditions that a retry of the same target can outlive, whatever their status. */
/**
 * File-system codes only a local disk can raise (no space, no quota left, a read-only mount):
 * never a model provider's connection. EACCES, EPERM and EMFILE are not here: a socket can raise
 * them too, so only a store's own `storage` error (`StorageErrorShape`) classifies them.
 */
export const STORAGE_CODES = codeSet('ENOSPC', 'EDQUOT', 'EROFS');

export const TRANSIENT_SERVER_CODES = codeSet('ModelNotReadyException');

export const INVALID_REQUEST_TEXT =
  /'max_tokens' or 'max_completion_tokens' is too large|max_tokens:\s*\d+\s*>\s*\d+|`tool_use` ids were found without `tool_result`|unexpected `tool_use_id`|tool_use_id.{0,80}tool_result|must be followed by tool messages|role 'tool' must be a response/;

export const CONTEXT_OVERFLOW_CODES = codeSet(
  'context_length_exceeded',
  'request_too_large',
  'exceed_context_size_error',
  'string_too_long',
  'model_context_window_exceeded',
);

export const CONTEXT_OVERFLOW_TEXT =
  /prompt is too long|maximum context length|context[ _]length|context window|context limit|exceeds? (?:the )?(?:model'?s? )?(?:available )?context|available context size|input is too long|too many input tokens|input token count.{0,40}exceeds|exceeds the maximum number of tokens|reduce the length of the messages/;

export const MODEL_NOT_FOUND_CODES = codeSet(
  'model_not_found',
  'DeploymentNotFound',
  'model_decommissioned',
  'not_found_error',
  'NotFoundError',
  'ResourceNotFoundException',
  'NOT_FOUND',
);

export const MODEL_NOT_FOUND_TEXT =
  /model.{0,120}(?:does not exist|not found|is not supported for generatecontent|has been decommissioned|no longer supported)|no endpoints found|could not resolve the foundation model|provided model identifier is invalid|no models loaded|try pulling it first|deployment for this resource does not exist|on-demand throughput is(?:n.t| not) supported/;

export const OVERLOADED_CODES = codeSet('overloaded_error', 'OverloadedError', 'server_overloaded');

export const OVERLOADED_TEXT =
  /overloaded|over capacity|out of capacity|capacity exceeded|at capacity|insufficient capacity|server is busy|experiencing high demand/;

export const RATE_LIMIT_CODES = codeSet(
  'rate_limit_error',
  'rate_limit_exceeded',
  'RateLimitError',
  'RESOURCE_EXHAUSTED',
  'ThrottlingException',
  'ServiceQuotaExceededException',
  'TooManyRequestsException',
  'too_many_requests',
);

export const RATE_LIMIT_TEXT =
  /rate limit|rate_limit|too many requests|too many tokens|throttl|resource (?:has been )?exhausted|quota exceeded|tokens per (?:min|day)|requests per (?:min|day)/;

export const AUTH_CODES = codeSet(
  'authentication_error',
  'permission_error',
  'invalid_api_key',
  'AuthenticationError',
  'PermissionDeniedError',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'API_KEY_INVALID',
  'AccessDeniedException',
  'UnrecognizedClientException',
  'ExpiredTokenException',
  'unsupported_country_region_territory',
);

export const AUTH_TEXT =
  /invalid (?:x-)?api[ _-]?key|incorrect api key|api key not valid|api key (?:is )?(?:invalid|expired|revoked|disabled)|authentication fails|invalid authentication|unauthori[sz]ed|permission denied|access denied|reported as leaked|model access is denied|user location is not supported|security token included in the request is invalid/;

export const TIMEOUT_CODES = codeSet(
  'timeout_error',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'DEADLINE_EXCEEDED',
  'ModelTimeoutException',
  'TimeoutError',
  'APIConnectionTimeoutError',
  'ConnectTimeoutError',
  'HeadersTimeoutError',
  'BodyTimeoutError',
  'RequestTimeoutError',
);

export const TIMEOUT_TEXT = /timed? ?out|timeout|deadline exceeded/;

export const PROVIDER_ABORT_CODES = codeSet(
  'AbortError',
  'APIUserAbortError',
  'ABORT_ERR',
  'UND_ERR_ABORTED',
  'RequestAbortedError',
);

export const PROVIDER_ABORT_TEXT = /(?:operation|request) was aborted|aborterror/;

export const CONNECTION_CODES = codeSet(
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENETRESET',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_CONNECT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'ERR_STREAM_PREMATURE_CLOSE',
  'APIConnectionError',
  'SocketError',
);

export const CONNECTION_TEXT =
  /connection error|fetch failed|socket hang up|\bterminated\b|other side closed|network error|premature close|connection (?:reset|refused|closed)|econnreset|socket disconnected before secure tls connection|stream ended without producing|request ended without sending any chunks|missing finish_reason/;

/**
 * V8's `JSON.parse` wording for input that ends too early: what an SDK throws when a response
 * body was cut short (only counted on a `SyntaxError` without an HTTP status).
 */
export const TRUNCATED_JSON_TEXT =
  /unexpected end of json input|unterminated string in json|(?:expected|unexpected) .{0,60} in json at position \d+/;

export const SERVER_ERROR_CODES = codeSet(
  'api_error',
  'server_error',
  'internal_error',
  'internal_server_error',
  'InternalServerError',
  'INTERNAL',
  'UNAVAILABLE',
  'ServiceUnavailableException',
  'InternalServerException',
  'ModelErrorException',
  'ModelStreamErrorException',
);

export const SERVER_ERROR_TEXT =
  /internal server error|server error|service unavailable|bad gateway|gateway time-?out|server had an error|upstream connect error|no healthy upstream/;

export const INVALID_REQUEST_CODES = codeSet(
  'invalid_request_error',
  'invalid_request',
  'INVALID_ARGUMENT',
  'FAILED_PRECONDITION',
  'ValidationException',
  'BadRequestError',
  'UnprocessableEntityError',
);
