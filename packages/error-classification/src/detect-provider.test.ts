import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error';
import { collectErrorFacts } from './collect-error-facts';
import { detectProvider } from './detect-provider';
import type { ProviderName } from './error-classification';

const providerOf = (error: unknown): ProviderName | undefined =>
  detectProvider(collectErrorFacts(error));

/**
 * Each signal alone, so that a signal dropped from its check, or a check that no longer looks,
 * changes the answer: every error below carries that one signal and nothing any other check reads.
 */
const SIGNALS: [string, unknown, ProviderName][] = [
  ['an apim-request-id header', { headers: { 'apim-request-id': 'r-1' } }, 'azure'],
  ['an x-ms-region header', { headers: { 'x-ms-region': 'East US' } }, 'azure'],
  ['an innererror key', { innererror: {} }, 'azure'],
  ['"Azure OpenAI" in a message', new Error('Azure OpenAI refused it'), 'azure'],
  ['a DeploymentNotFound code', { code: 'DeploymentNotFound' }, 'azure'],
  ['a $metadata key', { $metadata: {} }, 'bedrock'],
  ['an x-amzn-errortype header', { headers: { 'x-amzn-errortype': 'X' } }, 'bedrock'],
  ['a Bedrock exception name', { name: 'ModelTimeoutException' }, 'bedrock'],
  ['"Bedrock" in a message', new Error('Bedrock said no'), 'bedrock'],
  ['"OpenRouter" in a message', new Error('OpenRouter said no'), 'openrouter'],
  ['"Groq" in a message', new Error('Groq said no'), 'groq'],
  ['an x-groq-region header', { headers: { 'x-groq-region': 'us' } }, 'groq'],
  ['"DeepSeek" in a message', new Error('DeepSeek said no'), 'deepseek'],
  ['the message "Insufficient Balance"', new Error('Insufficient Balance'), 'deepseek'],
  ['googleapis.com in a message', new Error('see type.googleapis.com/x'), 'google'],
  ['GoogleGenerativeAI in a message', new Error('[GoogleGenerativeAI Error]: x'), 'google'],
  ['"Gemini" in a message', new Error('Gemini said no'), 'google'],
  ['"Ollama" in a message', new Error('Ollama said no'), 'ollama'],
  ['"try pulling it first"', new Error('model "x" not found, try pulling it first'), 'ollama'],
  [
    'an anthropic-organization-id header',
    { headers: { 'anthropic-organization-id': 'o' } },
    'anthropic',
  ],
  [
    'an anthropic-ratelimit-requests-limit header',
    { headers: { 'anthropic-ratelimit-requests-limit': '50' } },
    'anthropic',
  ],
  ['an apiMessage key', { apiMessage: 'x' }, 'anthropic'],
  ['a workspaceID key', { workspaceID: 'w' }, 'anthropic'],
  [
    "Anthropic's error body",
    { status: 400, body: { type: 'error', error: { type: 'x_error', message: 'm' } } },
    'anthropic',
  ],
  ['"Anthropic" in a message', new Error('Anthropic said no'), 'anthropic'],
  ['an openai-organization header', { headers: { 'openai-organization': 'o' } }, 'openai'],
  ['an openai-processing-ms header', { headers: { 'openai-processing-ms': '5' } }, 'openai'],
  ['platform.openai.com in a message', new Error('see platform.openai.com/x'), 'openai'],
  ['help.openai.com in a message', new Error('see help.openai.com/x'), 'openai'],
  ['a body with object "error"', { object: 'error', message: 'm' }, 'openai-compatible'],
  ['a body with param and a message', { param: null, message: 'm' }, 'openai-compatible'],
];

describe('detectProvider', () => {
  it.each(SIGNALS)('%s alone names the provider', (_signal, error, provider) => {
    expect(providerOf(error)).toBe(provider);
  });

  it.each([
    'RESOURCE_EXHAUSTED',
    'INVALID_ARGUMENT',
    'FAILED_PRECONDITION',
    'PERMISSION_DENIED',
    'UNAUTHENTICATED',
    'NOT_FOUND',
    'UNAVAILABLE',
    'DEADLINE_EXCEEDED',
    'INTERNAL',
  ])("Google's status %s alone names google", (status) => {
    expect(providerOf({ error: { status } })).toBe('google');
  });

  it.each([
    ['a plain error', new Error('x')],
    ['an unknown header', { headers: { 'x-request-id': 'r' } }],
    ['an exception name that is not Bedrock’s', { name: 'SomeOtherException' }],
    ['a Bedrock exception name with a prefix', { name: 'MyThrottlingException' }],
    ['a Bedrock exception name with a suffix', { name: 'ThrottlingExceptionX' }],
    ['an OpenAI-shaped body (no type "error" around it)', { error: { type: 'x_error' } }],
    ['a type "error" body whose error has no type', { type: 'error', error: { message: 'm' } }],
    ['a type "error" body whose error is text', { type: 'error', error: 'm' }],
    ['a param without a message', { param: 'model' }],
    ['a message without a param', { message: 'm' }],
    ['an Error with a param', Object.assign(new Error('m'), { param: 'model' })],
    ['"Insufficient Balance" inside a longer message', new Error('Insufficient Balance: x')],
    ['a Google status word that is no status', { error: { status: 'ABORTED' } }],
  ])('%s names none', (_case, error) => {
    expect(providerOf(error)).toBe(undefined);
  });

  it('a node whose `in` check throws counts as having no key (classifyError names no provider)', () => {
    const hostile = new Proxy(
      {},
      {
        has() {
          throw new Error('no');
        },
      },
    );
    // The last check's own `in` throws too; the classifier reads that as no provider.
    expect(classifyError(hostile).provider).toBe(undefined);
  });

  it('clouds and gateways are named before the APIs they mimic', () => {
    expect(providerOf(new Error('Azure OpenAI: see platform.openai.com'))).toBe('azure');
    expect(providerOf({ $metadata: {}, message: 'Anthropic model failed' })).toBe('bedrock');
    expect(providerOf(new Error('OpenRouter: Anthropic said no'))).toBe('openrouter');
    expect(providerOf({ innererror: {}, $metadata: {} })).toBe('azure');
    expect(providerOf({ object: 'error', message: 'Ollama said no' })).toBe('ollama');
  });
});
