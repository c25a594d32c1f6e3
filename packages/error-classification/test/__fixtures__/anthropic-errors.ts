import type { ErrorFixture } from './error-fixture';

const ERRORS_DOC = 'https://docs.anthropic.com/en/api/errors';

function anthropicBody(type: string, message: string): Record<string, unknown> {
  return { type: 'error', error: { type, message }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' };
}

/** Anthropic Messages API errors: documented types and messages seen in public reports. */
export const ANTHROPIC_FIXTURES: readonly ErrorFixture[] = [
  {
    name: 'anthropic 529 overloaded_error',
    source: ERRORS_DOC,
    kind: 'overloaded',
    code: 'overloaded_error',
    provider: 'anthropic',
    http: { sdk: 'anthropic', status: 529, body: anthropicBody('overloaded_error', 'Overloaded') },
  },
  {
    name: 'anthropic 429 rate_limit_error with retry-after',
    source: ERRORS_DOC,
    kind: 'rate_limit',
    code: 'rate_limit_error',
    http: {
      sdk: 'anthropic',
      status: 429,
      body: anthropicBody(
        'rate_limit_error',
        'This request would exceed the rate limit for your organization of 50,000 input tokens per minute.',
      ),
      headers: { 'retry-after': '17' },
    },
  },
  {
    name: 'anthropic 429 rate_limit_error with enforced_spend_limit_reached is billing',
    source:
      'https://learn.microsoft.com/en-us/microsoft-cloud/dev/dev-proxy/concepts/anthropic-529-overloaded-error (529 vs 429 vs spend limit table)',
    kind: 'billing',
    code: 'enforced_spend_limit_reached',
    http: {
      sdk: 'anthropic',
      status: 429,
      body: {
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message: 'Your organization has reached its monthly spend limit.',
          details: { error_code: 'enforced_spend_limit_reached' },
        },
      },
    },
  },
  {
    name: 'anthropic 400 credit balance is too low',
    source:
      'https://github.com/anthropics/claude-code/issues (public reports of "Credit balance is too low")',
    kind: 'billing',
    http: {
      sdk: 'anthropic',
      status: 400,
      body: anthropicBody(
        'invalid_request_error',
        'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
      ),
    },
  },
  {
    name: 'anthropic 400 workspace API usage limits',
    source: 'https://github.com/anthropics/claude-code/issues/55998',
    kind: 'billing',
    http: {
      sdk: 'anthropic',
      status: 400,
      body: anthropicBody(
        'invalid_request_error',
        'You have reached your specified workspace API usage limits. You will regain access on 2026-06-01 at 00:00 UTC.',
      ),
    },
  },
  {
    name: 'anthropic 402 billing_error',
    source: ERRORS_DOC,
    kind: 'billing',
    code: 'billing_error',
    http: {
      sdk: 'anthropic',
      status: 402,
      body: anthropicBody(
        'billing_error',
        'There is an issue with your billing or payment information.',
      ),
    },
  },
  {
    name: 'anthropic 400 prompt is too long',
    source:
      'https://github.com/anthropics/claude-code/issues (public reports of "prompt is too long")',
    kind: 'context_overflow',
    http: {
      sdk: 'anthropic',
      status: 400,
      body: anthropicBody(
        'invalid_request_error',
        'prompt is too long: 208310 tokens > 200000 maximum',
      ),
    },
  },
  {
    name: 'anthropic 400 input length and max_tokens exceed context limit',
    source:
      'https://github.com/anthropics/claude-code/issues (public reports of "exceed context limit")',
    kind: 'context_overflow',
    http: {
      sdk: 'anthropic',
      status: 400,
      body: anthropicBody(
        'invalid_request_error',
        'input length and `max_tokens` exceed context limit: 197626 + 21333 > 200000, decrease input length or `max_tokens` and try again',
      ),
    },
  },
  {
    name: 'anthropic 413 request_too_large',
    source: ERRORS_DOC,
    kind: 'context_overflow',
    code: 'request_too_large',
    http: {
      sdk: 'anthropic',
      status: 413,
      body: anthropicBody(
        'request_too_large',
        'Request exceeds the maximum allowed number of bytes.',
      ),
    },
  },
  {
    name: 'anthropic 400 max_tokens above the model maximum',
    source:
      'https://github.com/anthropics/claude-code/issues (public reports of "max_tokens: N > M")',
    kind: 'invalid_request',
    http: {
      sdk: 'anthropic',
      status: 400,
      body: anthropicBody(
        'invalid_request_error',
        'max_tokens: 128000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-20250514',
      ),
    },
  },
  {
    name: 'anthropic 400 tool_use without tool_result',
    source:
      'https://github.com/anthropics/claude-code/issues (public reports of unpaired tool_use)',
    kind: 'invalid_request',
    http: {
      sdk: 'anthropic',
      status: 400,
      body: anthropicBody(
        'invalid_request_error',
        'messages.16: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01Xh7gNRhWV3dSXb6MjJeGnN. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
      ),
    },
  },
  {
    name: 'anthropic 400 tool_result without tool_use',
    source:
      'https://github.com/anthropics/claude-code/issues (public reports of unexpected tool_use_id)',
    kind: 'invalid_request',
    http: {
      sdk: 'anthropic',
      status: 400,
      body: anthropicBody(
        'invalid_request_error',
        'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01A09q90qw90lq917835lq9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
      ),
    },
  },
  {
    name: 'anthropic 400 output blocked by content filtering policy',
    source:
      'https://github.com/anthropics/claude-code/issues (public reports of "Output blocked by content filtering policy")',
    kind: 'content_policy',
    http: {
      sdk: 'anthropic',
      status: 400,
      body: anthropicBody('invalid_request_error', 'Output blocked by content filtering policy'),
    },
  },
  {
    name: 'anthropic 404 not_found_error for a model',
    source: ERRORS_DOC,
    kind: 'model_not_found',
    code: 'not_found_error',
    http: {
      sdk: 'anthropic',
      status: 404,
      body: anthropicBody('not_found_error', 'model: claude-3-opus-latest-typo'),
    },
  },
  {
    name: 'anthropic 401 invalid x-api-key',
    source: ERRORS_DOC,
    kind: 'auth',
    code: 'authentication_error',
    http: {
      sdk: 'anthropic',
      status: 401,
      body: anthropicBody('authentication_error', 'invalid x-api-key'),
    },
  },
  {
    name: 'anthropic 403 permission_error',
    source: ERRORS_DOC,
    kind: 'auth',
    code: 'permission_error',
    http: {
      sdk: 'anthropic',
      status: 403,
      body: anthropicBody(
        'permission_error',
        'Your API key does not have permission to use the specified resource.',
      ),
    },
  },
  {
    name: 'anthropic 500 api_error',
    source: ERRORS_DOC,
    kind: 'server_error',
    code: 'api_error',
    http: {
      sdk: 'anthropic',
      status: 500,
      body: anthropicBody('api_error', 'Internal server error'),
    },
  },
  {
    name: 'anthropic 504 timeout_error',
    source: ERRORS_DOC,
    kind: 'timeout',
    code: 'timeout_error',
    http: {
      sdk: 'anthropic',
      status: 504,
      body: anthropicBody('timeout_error', 'Request timed out while processing'),
    },
  },
];
