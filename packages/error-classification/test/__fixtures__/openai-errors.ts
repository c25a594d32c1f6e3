import type { ErrorFixture } from './error-fixture';

const OPENAI_DOC = 'https://platform.openai.com/docs/guides/error-codes';
const AZURE_FILTER_DOC =
  'https://learn.microsoft.com/en-us/azure/ai-services/openai/concepts/content-filter';

function openAiBody(
  message: string,
  type: string | null,
  code: string | null,
  param: string | null = null,
) {
  return { error: { message, type, param, code } };
}

/** OpenAI and Azure OpenAI errors: documented codes and messages from public reports. */
export const OPENAI_FIXTURES: readonly ErrorFixture[] = [
  {
    name: 'openai 429 insufficient_quota is billing',
    source: OPENAI_DOC,
    kind: 'billing',
    code: 'insufficient_quota',
    http: {
      sdk: 'openai',
      status: 429,
      body: openAiBody(
        'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
        'insufficient_quota',
        'insufficient_quota',
      ),
    },
  },
  {
    name: 'openai 429 rate_limit_exceeded (tokens per min)',
    source: OPENAI_DOC,
    kind: 'rate_limit',
    code: 'rate_limit_exceeded',
    http: {
      sdk: 'openai',
      status: 429,
      body: openAiBody(
        'Rate limit reached for gpt-4o in organization org-abc123 on tokens per min (TPM): Limit 30000, Used 29000, Requested 2500. Please try again in 3s. Visit https://platform.openai.com/account/rate-limits to learn more.',
        'tokens',
        'rate_limit_exceeded',
      ),
      headers: { 'retry-after-ms': '3000', 'openai-processing-ms': '12' },
    },
    provider: 'openai',
  },
  {
    name: 'openai 429 request too large for TPM stays a rate limit',
    source: 'https://community.openai.com (public reports of "Request too large for gpt-4o")',
    kind: 'rate_limit',
    http: {
      sdk: 'openai',
      status: 429,
      body: openAiBody(
        'Request too large for gpt-4o in organization org-abc123 on tokens per min (TPM): Limit 30000, Requested 45211. The input or output tokens must be reduced in order to run successfully.',
        'tokens',
        'rate_limit_exceeded',
      ),
    },
  },
  {
    name: 'openai 400 context_length_exceeded',
    source: OPENAI_DOC,
    kind: 'context_overflow',
    code: 'context_length_exceeded',
    http: {
      sdk: 'openai',
      status: 400,
      body: openAiBody(
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.",
        'invalid_request_error',
        'context_length_exceeded',
        'messages',
      ),
    },
  },
  {
    name: 'openai 404 model_not_found',
    source: OPENAI_DOC,
    kind: 'model_not_found',
    code: 'model_not_found',
    http: {
      sdk: 'openai',
      status: 404,
      body: openAiBody(
        'The model `gpt-5-turbo` does not exist or you do not have access to it.',
        'invalid_request_error',
        'model_not_found',
      ),
    },
  },
  {
    name: 'openai 401 invalid_api_key',
    source: OPENAI_DOC,
    kind: 'auth',
    code: 'invalid_api_key',
    http: {
      sdk: 'openai',
      status: 401,
      body: openAiBody(
        'Incorrect API key provided: sk-proj-****abcd. You can find your API key at https://platform.openai.com/account/api-keys.',
        'invalid_request_error',
        'invalid_api_key',
      ),
    },
  },
  {
    name: 'openai 403 unsupported_country_region_territory',
    source: OPENAI_DOC,
    kind: 'auth',
    http: {
      sdk: 'openai',
      status: 403,
      body: openAiBody(
        'Country, region, or territory not supported',
        'request_forbidden',
        'unsupported_country_region_territory',
      ),
    },
  },
  {
    name: 'openai 500 server_error',
    source: OPENAI_DOC,
    kind: 'server_error',
    http: {
      sdk: 'openai',
      status: 500,
      body: openAiBody(
        'The server had an error while processing your request. Sorry about that!',
        'server_error',
        null,
      ),
    },
  },
  {
    name: 'openai 503 engine overloaded',
    source: OPENAI_DOC,
    kind: 'overloaded',
    http: {
      sdk: 'openai',
      status: 503,
      body: openAiBody(
        'The engine is currently overloaded, please try again later.',
        'server_error',
        null,
      ),
    },
  },
  {
    name: 'openai 429 model overloaded with other requests',
    source: 'https://community.openai.com (public reports of "That model is currently overloaded")',
    kind: 'overloaded',
    http: {
      sdk: 'openai',
      status: 429,
      body: openAiBody(
        'That model is currently overloaded with other requests. You can retry your request, or contact us through our help center at help.openai.com if the error persists.',
        'server_error',
        null,
      ),
    },
  },
  {
    name: 'openai 400 invalid_prompt flagged by usage policy',
    source: OPENAI_DOC,
    kind: 'content_policy',
    http: {
      sdk: 'openai',
      status: 400,
      body: openAiBody(
        'Invalid prompt: your prompt was flagged as potentially violating our usage policy. Please try again with a different prompt.',
        'invalid_request_error',
        'invalid_prompt',
      ),
    },
  },
  {
    name: 'openai 400 tool_calls not followed by tool messages',
    source: 'https://community.openai.com (public reports of "must be followed by tool messages")',
    kind: 'invalid_request',
    http: {
      sdk: 'openai',
      status: 400,
      body: openAiBody(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_DdmhHQB4tr0r0Y1sZb5DwQ5e",
        'invalid_request_error',
        null,
        'messages.[3].role',
      ),
    },
  },
  {
    name: 'openai 400 unsupported parameter',
    source: OPENAI_DOC,
    kind: 'invalid_request',
    http: {
      sdk: 'openai',
      status: 400,
      body: openAiBody(
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        'invalid_request_error',
        'unsupported_parameter',
        'max_tokens',
      ),
    },
  },
  {
    name: 'azure 400 content_filter with innererror',
    source: 'https://github.com/openai/openai-python/issues/331 and ' + AZURE_FILTER_DOC,
    kind: 'content_policy',
    code: 'content_filter',
    provider: 'azure',
    http: {
      sdk: 'openai',
      status: 400,
      body: {
        error: {
          message:
            "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
          type: null,
          param: 'prompt',
          code: 'content_filter',
          status: 400,
          innererror: {
            code: 'ResponsibleAIPolicyViolation',
            content_filter_result: {
              hate: { filtered: false, severity: 'safe' },
              violence: { filtered: true, severity: 'medium' },
            },
          },
        },
      },
    },
  },
  {
    name: 'azure 429 token rate limit of the pricing tier',
    source: 'https://learn.microsoft.com/en-us/azure/ai-services/openai/quotas-limits',
    kind: 'rate_limit',
    provider: 'azure',
    http: {
      sdk: 'openai',
      status: 429,
      body: {
        error: {
          code: '429',
          message:
            'Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-02-01 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 6 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit.',
        },
      },
      headers: { 'retry-after': '6', 'apim-request-id': 'f0c7a5b2-0000-0000-0000-000000000000' },
    },
  },
  {
    name: 'azure 404 DeploymentNotFound',
    source: 'https://learn.microsoft.com/en-us/azure/ai-services/openai/how-to/create-resource',
    kind: 'model_not_found',
    code: 'DeploymentNotFound',
    provider: 'azure',
    http: {
      sdk: 'openai',
      status: 404,
      body: {
        error: {
          code: 'DeploymentNotFound',
          message:
            'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
        },
      },
    },
  },
  {
    name: 'azure 401 invalid subscription key',
    source: 'https://learn.microsoft.com/en-us/azure/ai-services/openai/reference',
    kind: 'auth',
    http: {
      sdk: 'openai',
      status: 401,
      body: {
        error: {
          code: '401',
          message:
            'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
        },
      },
    },
  },
  {
    name: 'openai ContentFilterFinishReasonError',
    source: 'openai-node src/core/error.ts (ContentFilterFinishReasonError)',
    kind: 'content_policy',
    error: new Error(
      'Could not parse response content as the request was rejected by the content filter',
    ),
  },
];
