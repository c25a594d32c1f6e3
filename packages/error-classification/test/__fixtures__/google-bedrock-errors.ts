import type { ErrorFixture } from './error-fixture';

const GEMINI_DOC = 'https://ai.google.dev/gemini-api/docs/troubleshooting';
const BEDROCK_DOC =
  'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html#API_runtime_InvokeModel_Errors';

function geminiBody(code: number, status: string, message: string, details?: unknown[]) {
  return { error: { code, message, status, ...(details ? { details } : {}) } };
}

/** An AWS SDK v3 service exception as it is thrown (name, message, $fault, $metadata). */
function awsException(name: string, message: string, httpStatusCode: number): Error {
  return Object.assign(new Error(message), {
    name,
    $fault: httpStatusCode >= 500 ? 'server' : 'client',
    $metadata: {
      httpStatusCode,
      requestId: '158a2e26-c851-4440-9f98-e3065df1de46',
      attempts: 1,
      totalRetryDelay: 0,
    },
  });
}

/** `@google/genai`'s ApiError: `status` plus the JSON body as its message. */
function genaiApiError(body: ReturnType<typeof geminiBody>): Error {
  return Object.assign(new Error(JSON.stringify(body)), {
    name: 'ApiError',
    status: body.error.code,
  });
}

/** Google Gemini and AWS Bedrock errors. */
export const GOOGLE_BEDROCK_FIXTURES: readonly ErrorFixture[] = [
  {
    name: 'gemini 429 RESOURCE_EXHAUSTED (serialized body)',
    source: GEMINI_DOC,
    kind: 'rate_limit',
    code: 'RESOURCE_EXHAUSTED',
    provider: 'google',
    error: geminiBody(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).'),
  },
  {
    name: 'gemini 429 free-tier quota worded like insufficient_quota stays a rate limit',
    source: 'https://ai.google.dev/gemini-api/docs/rate-limits and public gemini-cli issue reports',
    kind: 'rate_limit',
    error: genaiApiError(
      geminiBody(
        429,
        'RESOURCE_EXHAUSTED',
        'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: gemini-2.5-flash\nPlease retry in 13.4s.',
        [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '13s' }],
      ),
    ),
  },
  {
    name: 'gemini 503 UNAVAILABLE model is overloaded',
    source: 'https://github.com/google-gemini/gemini-cli/issues/5191',
    kind: 'overloaded',
    provider: 'google',
    error: genaiApiError(
      geminiBody(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'),
    ),
  },
  {
    name: 'gemini-cli wrapped overloaded message',
    source: 'https://github.com/google-gemini/gemini-cli/issues/5191',
    kind: 'overloaded',
    error:
      '[API Error: got status: UNAVAILABLE. {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}]',
  },
  {
    name: 'gemini 500 INTERNAL',
    source: GEMINI_DOC,
    kind: 'server_error',
    code: 'INTERNAL',
    error: geminiBody(
      500,
      'INTERNAL',
      'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
    ),
  },
  {
    name: 'gemini 504 DEADLINE_EXCEEDED',
    source: GEMINI_DOC,
    kind: 'timeout',
    code: 'DEADLINE_EXCEEDED',
    error: geminiBody(
      504,
      'DEADLINE_EXCEEDED',
      'Deadline expired before operation could complete.',
    ),
  },
  {
    name: 'gemini 400 API key not valid',
    source: GEMINI_DOC,
    kind: 'auth',
    error: geminiBody(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
      },
    ]),
  },
  {
    name: 'gemini 403 key reported as leaked',
    source: GEMINI_DOC,
    kind: 'auth',
    error: geminiBody(
      403,
      'PERMISSION_DENIED',
      'Your API key was reported as leaked. Please use another API key.',
    ),
  },
  {
    name: 'gemini 400 input token count exceeds the maximum',
    source: GEMINI_DOC,
    kind: 'context_overflow',
    error: geminiBody(
      400,
      'INVALID_ARGUMENT',
      'The input token count (1185043) exceeds the maximum number of tokens allowed (1048576).',
    ),
  },
  {
    name: 'gemini 404 model not found for API version',
    source: GEMINI_DOC,
    kind: 'model_not_found',
    error: geminiBody(
      404,
      'NOT_FOUND',
      'models/gemini-1.0-pro is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.',
    ),
  },
  {
    name: 'gemini OpenAI-compatible endpoint answers a list of errors',
    source:
      'https://ai.google.dev/gemini-api/docs/openai (public reports of list-shaped error bodies)',
    kind: 'rate_limit',
    error: [
      geminiBody(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).'),
    ],
  },
  {
    name: 'google generative-ai candidate blocked due to SAFETY',
    source: '@google/generative-ai GoogleGenerativeAIResponseError message',
    kind: 'content_policy',
    error: new Error('[GoogleGenerativeAI Error]: Candidate was blocked due to SAFETY'),
  },
  {
    name: 'bedrock ThrottlingException too many tokens',
    source: 'https://github.com/RooCodeInc/Roo-Code/issues/5050 and ' + BEDROCK_DOC,
    kind: 'rate_limit',
    code: 'ThrottlingException',
    provider: 'bedrock',
    error: awsException(
      'ThrottlingException',
      'Too many tokens, please wait before trying again.',
      429,
    ),
  },
  {
    name: 'bedrock ThrottlingException too many requests',
    source: 'https://github.com/kirodotdev/Kiro/issues/8113',
    kind: 'rate_limit',
    error: awsException(
      'ThrottlingException',
      'Too many requests, please wait before trying again.',
      429,
    ),
  },
  {
    name: 'bedrock ModelNotReadyException (a 429) is a transient server condition',
    source: BEDROCK_DOC,
    kind: 'server_error',
    code: 'ModelNotReadyException',
    error: awsException(
      'ModelNotReadyException',
      'The model is not ready to serve inference requests. The AWS SDK will automatically retry the operation up to 5 times.',
      429,
    ),
  },
  {
    name: 'bedrock ValidationException input is too long',
    source: BEDROCK_DOC,
    kind: 'context_overflow',
    error: awsException('ValidationException', 'Input is too long for requested model.', 400),
  },
  {
    name: 'bedrock ValidationException invalid model identifier',
    source: BEDROCK_DOC,
    kind: 'model_not_found',
    error: awsException('ValidationException', 'The provided model identifier is invalid.', 400),
  },
  {
    name: 'bedrock AccessDeniedException',
    source: BEDROCK_DOC,
    kind: 'auth',
    code: 'AccessDeniedException',
    error: awsException(
      'AccessDeniedException',
      "You don't have access to the model with the specified model ID.",
      403,
    ),
  },
  {
    name: 'bedrock ModelTimeoutException',
    source: BEDROCK_DOC,
    kind: 'timeout',
    code: 'ModelTimeoutException',
    error: awsException(
      'ModelTimeoutException',
      'Model has timed out in processing the request.',
      408,
    ),
  },
  {
    name: 'bedrock ServiceUnavailableException',
    source: BEDROCK_DOC,
    kind: 'server_error',
    error: awsException(
      'ServiceUnavailableException',
      'Service is temporarily unable to handle requests.',
      503,
    ),
  },
];
