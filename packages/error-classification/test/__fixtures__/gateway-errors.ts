import type { ErrorFixture } from './error-fixture';

const OPENROUTER_DOC = 'https://openrouter.ai/docs/api-reference/errors';
const GROQ_DOC = 'https://console.groq.com/docs/errors';
const DEEPSEEK_DOC = 'https://api-docs.deepseek.com/quick_start/error_codes';

/** OpenRouter, Groq, DeepSeek and OpenAI-compatible local servers (Ollama, vLLM, llama.cpp, LM Studio). */
export const GATEWAY_FIXTURES: readonly ErrorFixture[] = [
  {
    name: 'openrouter 402 insufficient credits',
    source: OPENROUTER_DOC,
    kind: 'billing',
    provider: 'openrouter',
    http: {
      sdk: 'openai',
      status: 402,
      body: {
        error: {
          code: 402,
          message:
            'This request requires more credits, or fewer max_tokens. You requested up to 8192 tokens, but can only afford 1270. To increase, visit https://openrouter.ai/settings/credits and upgrade to a paid account',
        },
      },
    },
  },
  {
    name: 'openrouter 403 moderation flagged input',
    source: OPENROUTER_DOC,
    kind: 'content_policy',
    http: {
      sdk: 'openai',
      status: 403,
      body: {
        error: {
          code: 403,
          message:
            'openai/gpt-4o requires moderation on OpenAI. Your input was flagged for "harassment".',
          metadata: {
            reasons: ['harassment'],
            flagged_input: 'you are…',
            provider_name: 'OpenAI',
            model_slug: 'openai/gpt-4o',
          },
        },
      },
    },
  },
  {
    name: 'openrouter 404 no endpoints found',
    source: OPENROUTER_DOC,
    kind: 'model_not_found',
    http: {
      sdk: 'openai',
      status: 404,
      body: {
        error: { code: 404, message: 'No endpoints found for anthropic/claude-3-opus-20240229.' },
      },
    },
  },
  {
    name: 'openrouter 408 request timed out',
    source: OPENROUTER_DOC,
    kind: 'timeout',
    http: {
      sdk: 'openai',
      status: 408,
      body: { error: { code: 408, message: 'Your request timed out' } },
    },
  },
  {
    name: 'openrouter 502 chosen model is down',
    source: OPENROUTER_DOC,
    kind: 'server_error',
    http: {
      sdk: 'openai',
      status: 502,
      body: {
        error: {
          code: 502,
          message: 'Your chosen model is down or we received an invalid response from it',
        },
      },
    },
  },
  {
    name: 'openrouter mid-stream error chunk (HTTP 200, error in the SSE data)',
    source: OPENROUTER_DOC + ' (errors during streaming)',
    kind: 'server_error',
    error: {
      id: 'cmpl-abc123',
      object: 'chat.completion.chunk',
      error: { code: 'server_error', message: 'Provider disconnected unexpectedly' },
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
    },
  },
  {
    name: 'groq 429 rate limit with billing link stays a rate limit',
    source: GROQ_DOC + ' and https://console.groq.com/docs/rate-limits',
    kind: 'rate_limit',
    code: 'rate_limit_exceeded',
    provider: 'groq',
    http: {
      sdk: 'openai',
      status: 429,
      body: {
        error: {
          message:
            'Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_01hxyz` service tier `on_demand` on tokens per minute (TPM): Limit 12000, Used 11890, Requested 1512. Please try again in 7.01s. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing',
          type: 'tokens',
          code: 'rate_limit_exceeded',
        },
      },
      headers: { 'retry-after': '8' },
    },
  },
  {
    name: 'groq 413 request too large for TPM stays a rate limit',
    source: GROQ_DOC,
    kind: 'rate_limit',
    http: {
      sdk: 'openai',
      status: 413,
      body: {
        error: {
          message:
            'Request too large for model `llama3-70b-8192` in organization `org_01hxyz` on tokens per minute (TPM): Limit 6000, Requested 9120, please reduce your message size and try again.',
          type: 'tokens',
          code: 'rate_limit_exceeded',
        },
      },
    },
  },
  {
    name: 'groq 400 model decommissioned',
    source: GROQ_DOC + ' and https://console.groq.com/docs/deprecations',
    kind: 'model_not_found',
    code: 'model_decommissioned',
    http: {
      sdk: 'openai',
      status: 400,
      body: {
        error: {
          message:
            'The model `mixtral-8x7b-32768` has been decommissioned and is no longer supported. Please refer to https://console.groq.com/docs/deprecations for a recommendation on which model to use instead.',
          type: 'invalid_request_error',
          code: 'model_decommissioned',
        },
      },
    },
  },
  {
    name: 'groq 498 flex tier capacity exceeded',
    source: GROQ_DOC,
    kind: 'overloaded',
    http: {
      sdk: 'openai',
      status: 498,
      body: { error: { message: 'Flex Tier Capacity Exceeded', type: 'capacity_exceeded' } },
    },
  },
  {
    name: 'deepseek 402 Insufficient Balance',
    source: DEEPSEEK_DOC + ' and https://github.com/continuedev/continue/issues/9180',
    kind: 'billing',
    provider: 'deepseek',
    http: {
      sdk: 'openai',
      status: 402,
      body: {
        error: {
          message: 'Insufficient Balance',
          type: 'unknown_error',
          param: null,
          code: 'invalid_request_error',
        },
      },
    },
  },
  {
    name: 'deepseek 503 Server Overloaded',
    source: DEEPSEEK_DOC,
    kind: 'overloaded',
    http: {
      sdk: 'openai',
      status: 503,
      body: { error: { message: 'Server Overloaded', type: 'server_error' } },
    },
  },
  {
    name: 'deepseek 400 maximum context length',
    source: DEEPSEEK_DOC,
    kind: 'context_overflow',
    http: {
      sdk: 'openai',
      status: 400,
      body: {
        error: {
          message:
            "This model's maximum context length is 65536 tokens. However, you requested 70123 tokens (62123 in the messages, 8000 in the completion). Please reduce the length of the messages or completion.",
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_request_error',
        },
      },
    },
  },
  {
    name: 'deepseek 401 Authentication Fails',
    source: DEEPSEEK_DOC,
    kind: 'auth',
    http: {
      sdk: 'openai',
      status: 401,
      body: {
        error: {
          message: 'Authentication Fails, Your api key: ****abcd is invalid',
          type: 'authentication_error',
          param: null,
          code: 'invalid_request_error',
        },
      },
    },
  },
  {
    name: 'ollama 404 model not found, try pulling it first',
    source: 'https://github.com/ollama/ollama/blob/main/docs/openai.md (OpenAI-compatible errors)',
    kind: 'model_not_found',
    provider: 'ollama',
    http: {
      sdk: 'openai',
      status: 404,
      body: {
        error: {
          message: 'model "llama3.3" not found, try pulling it first',
          type: 'api_error',
          param: null,
          code: null,
        },
      },
    },
  },
  {
    name: 'ollama 500 runner terminated',
    source:
      'https://github.com/ollama/ollama/issues (public reports of "llama runner process has terminated")',
    kind: 'server_error',
    http: {
      sdk: 'openai',
      status: 500,
      body: {
        error: {
          message: 'llama runner process has terminated: signal: killed',
          type: 'api_error',
          param: null,
          code: null,
        },
      },
    },
  },
  {
    name: 'vllm 400 maximum context length (top-level ErrorResponse body)',
    source: 'https://github.com/vllm-project/vllm/issues (public reports of ErrorResponse bodies)',
    kind: 'context_overflow',
    provider: 'openai-compatible',
    error: Object.assign(new Error('Bad Request'), {
      status: 400,
      body: {
        object: 'error',
        message:
          "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    }),
  },
  {
    name: 'vllm 400 max_tokens too large is not a context overflow',
    source:
      'https://github.com/vllm-project/vllm/issues (public reports of "max_tokens ... is too large")',
    kind: 'invalid_request',
    error: Object.assign(new Error('Bad Request'), {
      status: 400,
      body: {
        object: 'error',
        message:
          "'max_tokens' or 'max_completion_tokens' is too large: 5000. This model's maximum context length is 4096 tokens and your request has 120 input tokens (5000 > 4096 - 120).",
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    }),
  },
  {
    name: 'vllm 404 model does not exist (top-level ErrorResponse body)',
    source: 'https://github.com/vllm-project/vllm/issues (public reports of ErrorResponse bodies)',
    kind: 'model_not_found',
    error: Object.assign(new Error('Not Found'), {
      status: 404,
      body: {
        object: 'error',
        message: 'The model `meta-llama/Llama-3-8b` does not exist.',
        type: 'NotFoundError',
        param: null,
        code: 404,
      },
    }),
  },
  {
    name: 'llama.cpp server exceed_context_size_error',
    source: 'https://github.com/ggml-org/llama.cpp/tree/master/tools/server (error types)',
    kind: 'context_overflow',
    http: {
      sdk: 'openai',
      status: 400,
      body: {
        error: {
          code: 400,
          message: 'the request exceeds the available context size, try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: 9000,
          n_ctx: 8192,
        },
      },
    },
  },
  {
    name: 'lm studio no models loaded',
    source:
      'https://lmstudio.ai/docs/app/api/endpoints/openai (public reports of "No models loaded")',
    kind: 'model_not_found',
    error: {
      error:
        'No models loaded. Please load a model in the developer page or use the `lms load` command.',
    },
  },
];
