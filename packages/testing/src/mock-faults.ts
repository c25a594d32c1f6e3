import type { MockBehavior } from './mock-provider-types';

type HttpErrorBehavior = Extract<MockBehavior, { type: 'http-error' }>;

export interface RateLimitedOptions {
  /** Sent as `retry-after` (seconds). */
  retryAfterSeconds?: number;
  /** Sent as `retry-after-ms`. */
  retryAfterMs?: number;
}

export interface PromptTooLongOptions {
  /** Default 210000. */
  tokens?: number;
  /** Default 200000 (Anthropic); OpenAI wording uses 128000 unless given. */
  maximum?: number;
}

export interface UnauthorizedOptions {
  /** The rejected key, quoted in OpenAI's message as OpenAI does; default `sk-mock`. */
  apiKey?: string;
}

export interface ModelNotFoundOptions {
  /** The model named in the message; default `mock-missing-model`. */
  model?: string;
}

/** Ready-made provider faults, each a `MockBehavior` worded as the real providers word it. */
export interface MockFaults {
  /** Anthropic 529 `overloaded_error` "Overloaded"; OpenAI 503 "That model is currently overloaded…". */
  overloaded(): HttpErrorBehavior;
  /** 429 `rate_limit_error` (OpenAI `rate_limit_exceeded`) with optional `retry-after` / `retry-after-ms`. */
  rateLimited(options?: RateLimitedOptions): HttpErrorBehavior;
  /** 401: Anthropic `authentication_error` "invalid x-api-key"; OpenAI `invalid_api_key`. */
  unauthorized(options?: UnauthorizedOptions): HttpErrorBehavior;
  /** Anthropic 400 "Your credit balance is too low…"; OpenAI 429 `insufficient_quota`. */
  billing(): HttpErrorBehavior;
  /** Anthropic 400 "prompt is too long: N tokens > M maximum"; OpenAI 400 `context_length_exceeded`. */
  promptTooLong(options?: PromptTooLongOptions): HttpErrorBehavior;
  /** A 5xx without overload wording; default 500. */
  serverError(status?: number): HttpErrorBehavior;
  /** 404: Anthropic `not_found_error` "model: <name>"; OpenAI `model_not_found`. */
  modelNotFound(options?: ModelNotFoundOptions): HttpErrorBehavior;
  /** 400 content filter: Anthropic "Output blocked by content filtering policy"; OpenAI `content_policy_violation`. */
  contentFiltered(): HttpErrorBehavior;
  /** 400 `invalid_request_error` "This model does not support assistant message prefill…" (pair it with `match: { prefill: true }`). */
  prefillRejected(): HttpErrorBehavior;
}

const serverMessages: Record<number, string> = {
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
};

export const mockFaults: MockFaults = {
  overloaded() {
    return {
      type: 'http-error',
      status: 529,
      errorType: 'overloaded_error',
      message: 'Overloaded',
      openai: {
        status: 503,
        errorType: 'server_error',
        message:
          'That model is currently overloaded with other requests. You can retry your request, or contact us through our help center at help.openai.com if the error persists.',
      },
    };
  },
  rateLimited(options = {}) {
    const headers: Record<string, string> = {};
    if (options.retryAfterSeconds !== undefined) {
      headers['retry-after'] = String(options.retryAfterSeconds);
    }
    if (options.retryAfterMs !== undefined)
      headers['retry-after-ms'] = String(options.retryAfterMs);
    return {
      type: 'http-error',
      status: 429,
      errorType: 'rate_limit_error',
      message:
        'Number of request tokens has exceeded your per-minute rate limit (https://docs.anthropic.com/en/api/rate-limits); see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase.',
      headers,
      openai: {
        errorType: 'requests',
        code: 'rate_limit_exceeded',
        message:
          'Rate limit reached for requests in organization org-mock on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more.',
      },
    };
  },
  unauthorized(options = {}) {
    return {
      type: 'http-error',
      status: 401,
      errorType: 'authentication_error',
      message: 'invalid x-api-key',
      openai: {
        errorType: 'invalid_request_error',
        code: 'invalid_api_key',
        message: `Incorrect API key provided: ${options.apiKey ?? 'sk-mock'}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      },
    };
  },
  billing() {
    return {
      type: 'http-error',
      status: 400,
      errorType: 'invalid_request_error',
      message:
        'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
      openai: {
        status: 429,
        errorType: 'insufficient_quota',
        code: 'insufficient_quota',
        message:
          'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
      },
    };
  },
  promptTooLong(options = {}) {
    const tokens = options.tokens ?? 210000;
    const openaiMaximum = options.maximum ?? 128000;
    return {
      type: 'http-error',
      status: 400,
      errorType: 'invalid_request_error',
      message: `prompt is too long: ${tokens} tokens > ${options.maximum ?? 200000} maximum`,
      openai: {
        code: 'context_length_exceeded',
        message: `This model's maximum context length is ${openaiMaximum} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      },
    };
  },
  serverError(status = 500) {
    return {
      type: 'http-error',
      status,
      errorType: 'api_error',
      message: serverMessages[status] ?? 'Internal server error',
      openai: {
        errorType: 'server_error',
        message: 'The server had an error while processing your request. Sorry about that!',
      },
    };
  },
  modelNotFound(options = {}) {
    const model = options.model ?? 'mock-missing-model';
    return {
      type: 'http-error',
      status: 404,
      errorType: 'not_found_error',
      message: `model: ${model}`,
      openai: {
        errorType: 'invalid_request_error',
        code: 'model_not_found',
        message: `The model \`${model}\` does not exist or you do not have access to it.`,
      },
    };
  },
  contentFiltered() {
    return {
      type: 'http-error',
      status: 400,
      errorType: 'invalid_request_error',
      message: 'Output blocked by content filtering policy',
      openai: {
        code: 'content_policy_violation',
        message:
          'Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.',
      },
    };
  },
  prefillRejected() {
    return {
      type: 'http-error',
      status: 400,
      errorType: 'invalid_request_error',
      message:
        'This model does not support assistant message prefill. The conversation must end with a user message.',
    };
  },
};
