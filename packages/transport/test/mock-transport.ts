import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createTransport, type TransportOptions } from '../src/create-transport';
import type { SdkTransportOptionsBase } from '../src/transport-options';
import type { Transport } from '../src/types';

export { type Drained, drain, textOf } from './drain';

/** The SDK-backed APIs, each tested against the loopback mock provider. */
export const SDK_APIS = ['openai-chat', 'openai-responses', 'anthropic-messages'] as const;
export type SdkApi = (typeof SDK_APIS)[number];

/** An API key that must never show up in hooks or errors. */
export const SECRET_KEY = 'sk-keel-test-7f3a9c1e5b2d4f60';

export function baseUrlFor(api: SdkApi, mock: MockProvider): string {
  return api === 'anthropic-messages' ? mock.anthropicBaseUrl : mock.openaiBaseUrl;
}

/** A transport for `api` pointed at `mock`, with SDK retries off unless overridden. */
export function transportFor(
  api: SdkApi,
  mock: MockProvider,
  overrides: Partial<SdkTransportOptionsBase> = {},
): Transport {
  const options = {
    api,
    baseUrl: baseUrlFor(api, mock),
    apiKey: SECRET_KEY,
    model: 'mock-model',
    maxRetries: 0,
    ...overrides,
  } as TransportOptions;
  return createTransport(options);
}

export const hello = { messages: [{ role: 'user' as const, content: 'Say hello.' }] };

/**
 * One mock provider for a test file: started before the tests, reset (queue and record) before
 * each, closed after them. Call at the top level of the file.
 */
export function useMockProvider(): MockProvider {
  let current: MockProvider | undefined;
  beforeAll(async () => {
    current = await createMockProvider();
  });
  beforeEach(() => current?.reset());
  afterAll(() => current?.close());
  return new Proxy({} as MockProvider, {
    get(_target, key) {
      if (current === undefined) throw new Error('the mock provider starts in beforeAll');
      const value: unknown = Reflect.get(current, key);
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
}
