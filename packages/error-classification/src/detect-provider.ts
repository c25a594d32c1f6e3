import type { ErrorFacts } from './collect-error-facts';
import type { ProviderName } from './error-classification';
import { readHeader } from './parse-retry-after';

function hasKey(facts: ErrorFacts, key: string): boolean {
  return facts.nodes.some((node) => {
    if (typeof node !== 'object' || node === null) return false;
    try {
      return key in node;
    } catch {
      return false;
    }
  });
}

const GOOGLE_STATUSES = new Set([
  'RESOURCE_EXHAUSTED',
  'INVALID_ARGUMENT',
  'FAILED_PRECONDITION',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'NOT_FOUND',
  'UNAVAILABLE',
  'DEADLINE_EXCEEDED',
  'INTERNAL',
]);

const BEDROCK_EXCEPTIONS =
  /^(?:Throttling|ModelNotReady|ModelTimeout|ModelError|ModelStreamError|ServiceUnavailable|ServiceQuotaExceeded|AccessDenied|ResourceNotFound|Validation|InternalServer)Exception$/;

/**
 * Which provider an error came from, when its headers, body shape or wording say so.
 * Specific gateways and clouds are checked before the APIs they mimic.
 */
export function detectProvider(facts: ErrorFacts): ProviderName | undefined {
  const { text, headers } = facts;
  if (
    readHeader(headers, 'apim-request-id') !== undefined ||
    readHeader(headers, 'x-ms-region') !== undefined ||
    hasKey(facts, 'innererror') ||
    text.includes('azure openai') ||
    facts.codes.includes('DeploymentNotFound')
  ) {
    return 'azure';
  }
  if (
    hasKey(facts, '$metadata') ||
    readHeader(headers, 'x-amzn-errortype') !== undefined ||
    facts.names.some((name) => BEDROCK_EXCEPTIONS.test(name)) ||
    text.includes('bedrock')
  ) {
    return 'bedrock';
  }
  if (text.includes('openrouter')) return 'openrouter';
  if (text.includes('groq') || readHeader(headers, 'x-groq-region') !== undefined) return 'groq';
  if (text.includes('deepseek') || facts.messages.includes('Insufficient Balance'))
    return 'deepseek';
  if (
    facts.codes.some((code) => GOOGLE_STATUSES.has(code)) ||
    text.includes('googleapis.com') ||
    text.includes('googlegenerativeai') ||
    text.includes('gemini')
  ) {
    return 'google';
  }
  if (text.includes('ollama') || text.includes('try pulling it first')) return 'ollama';
  if (
    readHeader(headers, 'anthropic-organization-id') !== undefined ||
    readHeader(headers, 'anthropic-ratelimit-requests-limit') !== undefined ||
    hasKey(facts, 'apiMessage') ||
    hasKey(facts, 'workspaceID') ||
    facts.nodes.some(isAnthropicBody) ||
    text.includes('anthropic')
  ) {
    return 'anthropic';
  }
  if (
    readHeader(headers, 'openai-organization') !== undefined ||
    readHeader(headers, 'openai-processing-ms') !== undefined ||
    text.includes('platform.openai.com') ||
    text.includes('help.openai.com')
  ) {
    return 'openai';
  }
  if (facts.nodes.some(isOpenAiCompatibleBody)) return 'openai-compatible';
  return undefined;
}

function isAnthropicBody(node: unknown): boolean {
  if (typeof node !== 'object' || node === null) return false;
  const body = node as { type?: unknown; error?: unknown };
  return (
    body.type === 'error' &&
    typeof body.error === 'object' &&
    body.error !== null &&
    typeof (body.error as { type?: unknown }).type === 'string'
  );
}

/** vLLM / LM Studio / llama.cpp answer `{ object: 'error', … }` or an OpenAI body with `param`. */
function isOpenAiCompatibleBody(node: unknown): boolean {
  if (typeof node !== 'object' || node === null || node instanceof Error) return false;
  const body = node as { object?: unknown; param?: unknown; message?: unknown };
  return body.object === 'error' || ('param' in body && typeof body.message === 'string');
}
