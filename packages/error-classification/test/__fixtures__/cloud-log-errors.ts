import type { ErrorFixture } from './error-fixture';

const GOOGLE_JS_SDK =
  'google-gemini/generative-ai-js src/requests/request.ts ("Error fetching from <url>: [<status> <statusText>] <message>")';
const VERTEX_JS_SDK =
  'googleapis/nodejs-vertexai post-fetch processing ("[VertexAI.ClientError]: got status: <status> <statusText>. <body>")';
const GRPC_JS = 'grpc/grpc-js call error message ("<code> <Status[code]>: <details>")';
const BOTOCORE =
  'botocore ClientError message ("An error occurred (<code>) when calling the <operation> operation: <message>")';
const AZURE_QUOTA_DOC = 'https://learn.microsoft.com/en-us/azure/ai-services/openai/quotas-limits';
const DEEPSEEK_DOC = 'https://api-docs.deepseek.com/quick_start/error_codes';
const OPENROUTER_DOC =
  'https://openrouter.ai/docs/api-reference/errors (ProviderErrorMetadata: raw)';

/**
 * Google Gemini and Vertex AI, AWS Bedrock, Azure OpenAI, DeepSeek and OpenRouter errors as
 * they reach logs: the SDK's message text (`String(error)`), a CLI's line, or a body parsed on
 * its own, with no status property and no error class to go by.
 */
export const CLOUD_LOG_FIXTURES: readonly ErrorFixture[] = [
  {
    name: 'log: Google JS SDK 429 with the status only inside the message',
    source: GOOGLE_JS_SDK,
    kind: 'rate_limit',
    status: 429,
    provider: 'google',
    error:
      '[GoogleGenerativeAI Error]: Error fetching from https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-pro:generateContent: [429 Too Many Requests] Resource has been exhausted (e.g. check quota).',
  },
  {
    name: 'log: Google JS SDK 503 model overloaded while streaming',
    source: GOOGLE_JS_SDK + ' and https://github.com/google-gemini/gemini-cli/issues/4360',
    kind: 'overloaded',
    status: 503,
    error:
      '[GoogleGenerativeAI Error]: Error fetching from https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-flash:streamGenerateContent?alt=sse: [503 Service Unavailable] The model is overloaded. Please try again later.',
  },
  {
    name: 'log: Google JS SDK 400 with an API_KEY_INVALID detail',
    source:
      GOOGLE_JS_SDK +
      ' (details appended as JSON) and https://ai.google.dev/gemini-api/docs/troubleshooting',
    kind: 'auth',
    code: 'API_KEY_INVALID',
    error:
      '[GoogleGenerativeAI Error]: Error fetching from https://generativelanguage.googleapis.com/v1beta/models/gemini-pro:generateContent: [400 Bad Request] API key not valid. Please pass a valid API key. [{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}]',
  },
  {
    name: 'log: gemini-cli Vertex "Resource exhausted." line, no status',
    source: 'https://github.com/google-gemini/gemini-cli/issues/15498',
    kind: 'rate_limit',
    error:
      '[API Error: Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.]',
  },
  {
    name: 'log: gemini-cli body with a JSON body nested in its message',
    source: 'https://github.com/google-gemini/gemini-cli/issues/15745',
    kind: 'overloaded',
    status: 503,
    error:
      '[API Error: {"error":{"message":"{\\n  \\"error\\": {\\n    \\"code\\": 503,\\n    \\"message\\": \\"The model is overloaded. Please try again later.\\",\\n    \\"status\\": \\"UNAVAILABLE\\"\\n  }\\n}\\n","code":503,"status":"Service Unavailable"}}]',
  },
  {
    name: 'log: Python google-genai ServerError text (a dict, not JSON)',
    source: 'https://github.com/google-gemini/cookbook/issues/425',
    kind: 'overloaded',
    status: 503,
    error:
      "503 UNAVAILABLE. {'error': {'code': 503, 'message': 'The model is overloaded. Please try again later.', 'status': 'UNAVAILABLE'}}",
  },
  {
    name: 'log: Vertex AI SDK 429 RESOURCE_EXHAUSTED',
    source: VERTEX_JS_SDK,
    kind: 'rate_limit',
    status: 429,
    code: 'RESOURCE_EXHAUSTED',
    error:
      '[VertexAI.ClientError]: got status: 429 Too Many Requests. {"error":{"code":429,"message":"Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/quotas#error-code-429 for more details.","status":"RESOURCE_EXHAUSTED"}}',
  },
  {
    name: 'log: Vertex AI SDK 403 permission denied on the endpoint',
    source: VERTEX_JS_SDK,
    kind: 'auth',
    status: 403,
    error:
      '[VertexAI.ClientError]: got status: 403 Forbidden. {"error":{"code":403,"message":"Permission \'aiplatform.endpoints.predict\' denied on resource \'//aiplatform.googleapis.com/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.0-flash-lite-001\' (or it may not exist).","status":"PERMISSION_DENIED"}}',
  },
  {
    name: 'log: Vertex AI SDK 404 publisher model not found',
    source: VERTEX_JS_SDK,
    kind: 'model_not_found',
    status: 404,
    error:
      '[VertexAI.ClientError]: got status: 404 Not Found. {"error":{"code":404,"message":"Publisher Model `projects/my-project/locations/europe-west4/publishers/google/models/gemini-3-pro-preview` not found.","status":"NOT_FOUND"}}',
  },
  {
    name: 'log: grpc-js RESOURCE_EXHAUSTED',
    source: GRPC_JS,
    kind: 'rate_limit',
    code: 'RESOURCE_EXHAUSTED',
    error: 'Error: 8 RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).',
  },
  {
    name: 'log: Vertex AI Java client out of capacity',
    source: 'https://github.com/googleapis/google-cloud-java/issues/11195',
    kind: 'overloaded',
    error:
      'com.google.api.gax.rpc.ResourceExhaustedException: io.grpc.StatusRuntimeException: RESOURCE_EXHAUSTED: Unable to submit request because the service is temporarily out of capacity. Try again later.',
  },
  {
    name: 'log: grpc-js DEADLINE_EXCEEDED',
    source: GRPC_JS,
    kind: 'timeout',
    code: 'DEADLINE_EXCEEDED',
    error: 'Error: 4 DEADLINE_EXCEEDED: Deadline exceeded',
  },
  {
    name: 'log: AWS SDK v3 ThrottlingException as String(error)',
    source:
      'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html#API_runtime_InvokeModel_Errors',
    kind: 'rate_limit',
    code: 'ThrottlingException',
    provider: 'bedrock',
    error: 'ThrottlingException: Too many tokens, please wait before trying again.',
  },
  {
    name: 'log: botocore ThrottlingException after retries',
    source: BOTOCORE + '; public agent logs',
    kind: 'rate_limit',
    code: 'ThrottlingException',
    error:
      'An error occurred (ThrottlingException) when calling the InvokeModel operation (reached max retries: 4): Too many requests, please wait before trying again. You have sent too many requests.  Wait before trying again.',
  },
  {
    name: 'log: botocore AccessDeniedException for a model without access',
    source: 'https://github.com/dirkpetersen/our-chat/issues/3',
    kind: 'auth',
    code: 'AccessDeniedException',
    error:
      "botocore.errorfactory.AccessDeniedException: An error occurred (AccessDeniedException) when calling the InvokeModel operation: You don't have access to the model with the specified model ID.",
  },
  {
    name: 'log: Bedrock model id that needs an inference profile',
    source: 'https://github.com/strands-agents/harness-sdk/issues/38',
    kind: 'model_not_found',
    error:
      'An error occurred (ValidationException) when calling the ConverseStream operation: Invocation of model ID anthropic.claude-3-7-sonnet-20250219-v1:0 with on-demand throughput isn’t supported. Retry your request with the ID or ARN of an inference profile that contains this model.',
  },
  {
    name: 'log: Bedrock invalid model identifier',
    source: 'https://github.com/strands-agents/harness-sdk/issues/38',
    kind: 'model_not_found',
    error:
      'An error occurred (ValidationException) when calling the ConverseStream operation: The provided model identifier is invalid.',
  },
  {
    name: 'log: Bedrock prompt too long, as a Rust client prints it',
    source: 'https://github.com/aaif-goose/goose/issues/7442',
    kind: 'context_overflow',
    error:
      'Server error: Failed to call Bedrock: ValidationException: "The model returned the following errors: prompt is too long: 227255 tokens > 200000 maximum"',
  },
  {
    name: 'log: Bedrock Marketplace access denied',
    source: 'https://github.com/ministryofjustice/modernisation-platform-environments/pull/18323',
    kind: 'auth',
    error:
      'BedrockException - {"message":"Model access is denied due to IAM user or service role is not authorized to perform the required AWS Marketplace actions (aws-marketplace:ViewSubscriptions, aws-marketplace:Subscribe) to enable access to this model."}',
  },
  {
    name: 'log: Azure OpenAI 429 token rate limit through the openai SDK',
    source:
      AZURE_QUOTA_DOC + ' and https://github.com/microsoft/sample-app-aoai-chatGPT/issues/406',
    kind: 'rate_limit',
    status: 429,
    provider: 'azure',
    error:
      'Error: 429 Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-02-15-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 6 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit.',
  },
  {
    name: 'log: Azure OpenAI rate limit message alone',
    source: 'https://github.com/microsoft/sample-app-aoai-chatGPT/issues/131',
    kind: 'rate_limit',
    provider: 'azure',
    error:
      'Requests to the Creates a completion for the chat message Operation under Azure OpenAI API version 2023-03-15-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 7 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit.',
  },
  {
    name: 'log: Azure SDK for .NET RequestFailedException with a status line',
    source:
      'Azure/azure-sdk-for-net Azure.Core RequestFailedException message ("Status: <code> (<reason>)")',
    kind: 'rate_limit',
    status: 429,
    error:
      'Service request failed.\nStatus: 429 (Too Many Requests)\n\nContent:\n{"error":{"code":"429","message": "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-02-01 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 60 seconds."}}',
  },
  {
    name: 'log: Azure OpenAI content management policy',
    source: 'https://learn.microsoft.com/en-us/azure/ai-services/openai/concepts/content-filter',
    kind: 'content_policy',
    status: 400,
    provider: 'azure',
    error:
      "Error: 400 The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
  },
  {
    name: 'log: Azure OpenAI deployment does not exist',
    source: 'https://learn.microsoft.com/en-us/azure/ai-services/openai/how-to/create-resource',
    kind: 'model_not_found',
    status: 404,
    error:
      'Error: 404 The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
  },
  {
    name: 'log: Azure OpenAI invalid subscription key',
    source: 'https://learn.microsoft.com/en-us/azure/ai-services/openai/reference',
    kind: 'auth',
    status: 401,
    error:
      'Error: 401 Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
  },
  {
    name: 'log: Azure OpenAI peak-load message, no status',
    source: 'https://github.com/pollinations/pollinations/issues/6260',
    kind: 'overloaded',
    error:
      'The system is currently experiencing high demand and cannot process your request. Your request exceeds the maximum usage size allowed during peak load. Please retry after 20 seconds. For improved latency reliability, consider switching to Provisioned Throughput.',
  },
  {
    name: 'log: DeepSeek 402 through the openai SDK',
    source: DEEPSEEK_DOC + ' and https://github.com/continuedev/continue/issues/9180',
    kind: 'billing',
    status: 402,
    error: 'Error: 402 Insufficient Balance',
  },
  {
    name: 'log: DeepSeek body parsed on its own, no status',
    source: DEEPSEEK_DOC,
    kind: 'billing',
    provider: 'deepseek',
    error: JSON.parse(
      '{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}',
    ),
  },
  {
    name: 'log: DeepSeek 503 Server Overloaded',
    source: DEEPSEEK_DOC,
    kind: 'overloaded',
    status: 503,
    error: 'Error: 503 Server Overloaded',
  },
  {
    name: 'log: DeepSeek 429 Rate Limit Reached',
    source: DEEPSEEK_DOC,
    kind: 'rate_limit',
    status: 429,
    error: 'Error: 429 Rate Limit Reached',
  },
  {
    name: 'log: OpenRouter 429 Provider returned error',
    source: 'https://github.com/continuedev/continue/issues/10442',
    kind: 'rate_limit',
    status: 429,
    error: '429 Provider returned error',
  },
  {
    name: 'log: OpenRouter upstream rate limit, the reason in metadata.raw',
    source: OPENROUTER_DOC + ' and https://github.com/open-webui/computer/issues/293',
    kind: 'rate_limit',
    status: 429,
    provider: 'openrouter',
    error: JSON.parse(
      '{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"z-ai/glm-4.5-air:free is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits: https://openrouter.ai/settings/integrations","provider_name":"Z.AI"}}}',
    ),
  },
  {
    name: 'log: OpenRouter 400 whose metadata.raw is the upstream context overflow',
    source: OPENROUTER_DOC,
    kind: 'context_overflow',
    status: 400,
    error: JSON.parse(
      '{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\\"type\\":\\"error\\",\\"error\\":{\\"type\\":\\"invalid_request_error\\",\\"message\\":\\"prompt is too long: 210012 tokens > 200000 maximum\\"}}","provider_name":"Anthropic"}}}',
    ),
  },
  {
    name: 'log: OpenRouter 402 credits through the openai SDK',
    source: 'https://openrouter.ai/docs/api-reference/errors',
    kind: 'billing',
    status: 402,
    provider: 'openrouter',
    error:
      'Error: 402 This request requires more credits, or fewer max_tokens. You requested up to 64000 tokens, but can only afford 20113. To increase, visit https://openrouter.ai/settings/credits and upgrade to a paid account',
  },
  {
    name: 'log: OpenRouter no endpoints for the data policy',
    source:
      'public OpenRouter client code matching "No endpoints found matching your data policy" (404)',
    kind: 'model_not_found',
    error:
      'OpenRouter API error: 404 - No endpoints found matching your data policy (Free model publication). Configure: https://openrouter.ai/settings/privacy',
  },
];
