import Anthropic from '@anthropic-ai/sdk';
import {
  createMockProvider,
  type MockBehavior,
  type MockProvider,
  type MockScriptEntry,
  type RecordedRequest,
} from '@keel/testing';
import OpenAI from 'openai';
import OpenAI7 from 'openai7';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createTransport, type TransportOptions } from '../src/create-transport';
import type { OpenAISdk } from '../src/openai-client-like';
import type { SdkTransportOptionsBase } from '../src/transport-options';
import type { Transport } from '../src/types';

export { type Drained, drain, textOf } from './drain';

/** The SDK-backed APIs, each tested against the loopback mock provider. */
export const SDK_APIS = ['openai-chat', 'openai-responses', 'anthropic-messages'] as const;
export type SdkApi = (typeof SDK_APIS)[number];

/** One SDK-backed API driven by one installed SDK major. */
export interface SdkTarget {
  /** e.g. `openai-chat (openai 7)`, for test titles (`$name`). */
  readonly name: string;
  readonly api: SdkApi;
  /** The SDK's client class (its error classes hang off it, e.g. `APIUserAbortError`). */
  readonly Client: typeof OpenAI | typeof OpenAI7 | typeof Anthropic;
  /** How the transport loads this SDK; `undefined`: its default `import()`. */
  readonly loadSdk: (() => Promise<OpenAISdk>) | undefined;
}

const openai6 = { Client: OpenAI, loadSdk: undefined };
const openai7 = {
  Client: OpenAI7,
  // The devDependency alias `openai7` is `openai@^7` (npm's current major).
  loadSdk: (): Promise<OpenAISdk> => import('openai7'),
};

/** Every SDK-backed API with every SDK major the peer range allows and the tests install. */
export const SDK_TARGETS: readonly SdkTarget[] = [
  { name: 'openai-chat (openai 6)', api: 'openai-chat', ...openai6 },
  { name: 'openai-chat (openai 7)', api: 'openai-chat', ...openai7 },
  { name: 'openai-responses (openai 6)', api: 'openai-responses', ...openai6 },
  { name: 'openai-responses (openai 7)', api: 'openai-responses', ...openai7 },
  { name: 'anthropic-messages', api: 'anthropic-messages', Client: Anthropic, loadSdk: undefined },
];

/** An API key that must never show up in hooks or errors. */
export const SECRET_KEY = 'sk-keel-test-7f3a9c1e5b2d4f60';

export function baseUrlFor(
  api: SdkApi,
  mock: Pick<MockProvider, 'openaiBaseUrl' | 'anthropicBaseUrl'>,
): string {
  return api === 'anthropic-messages' ? mock.anthropicBaseUrl : mock.openaiBaseUrl;
}

/**
 * A transport for `target` pointed at `mock`, with SDK retries off unless overridden and the
 * current test's model (so the provider answers it from this test's script only).
 */
export function transportFor(
  target: SdkTarget,
  mock: ScopedMockProvider,
  overrides: Partial<SdkTransportOptionsBase> = {},
): Transport {
  const options = {
    api: target.api,
    baseUrl: baseUrlFor(target.api, mock),
    apiKey: SECRET_KEY,
    model: mock.model,
    maxRetries: 0,
    ...(target.loadSdk === undefined ? {} : { loadSdk: target.loadSdk }),
    ...overrides,
  } as TransportOptions;
  return createTransport(options);
}

/** A ready SDK client of `target` against `mock` (for the `client` option). */
export function clientFor(
  target: SdkTarget,
  mock: ScopedMockProvider,
  options: { apiKey: string; maxRetries?: number; defaultHeaders?: Record<string, string> },
): OpenAI | OpenAI7 | Anthropic {
  return new target.Client({ baseURL: baseUrlFor(target.api, mock), ...options });
}

export const hello = { messages: [{ role: 'user' as const, content: 'Say hello.' }] };

/**
 * One loopback provider shared by a test file, seen through the current test: `model` is a name
 * unique to the test, `enqueue` scripts behaviours that answer only requests naming that model
 * (or `<model>-<suffix>`), and `requests` / `pending()` hold only this test's. A request that a
 * previous test sent and the server reads late (a client that gave up under load) can neither
 * take this test's answer nor show up in its record.
 */
export interface ScopedMockProvider
  extends Pick<MockProvider, 'url' | 'port' | 'openaiBaseUrl' | 'anthropicBaseUrl'> {
  /** The current test's model name. */
  readonly model: string;
  /** The current test's requests, in order. */
  readonly requests: readonly RecordedRequest[];
  /** Queues behaviours for the current test's model. */
  enqueue(...entries: Array<MockBehavior | Omit<MockScriptEntry, 'match'>>): void;
  /** The current test's queued behaviours not used yet. */
  pending(): number;
}

function isEntry(
  value: MockBehavior | Omit<MockScriptEntry, 'match'>,
): value is Omit<MockScriptEntry, 'match'> {
  return 'behavior' in value;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Starts one mock provider for a test file (before its tests; closed after them) and gives every
 * test its own scope of it. Call at the top level of the file.
 */
export function useMockProvider(): ScopedMockProvider {
  let provider: MockProvider | undefined;
  let testNumber = 0;
  let model = '';
  let matcher = /^$/;
  beforeAll(async () => {
    provider = await createMockProvider();
  });
  beforeEach(() => {
    testNumber += 1;
    model = `mock-model-t${testNumber}`;
    // This test's model, alone or with a suffix (`mock-model-t3-tools`), never `…-t30`.
    matcher = new RegExp(`^${escapeRegExp(model)}(?:-.*)?$`);
    // Drops what earlier tests left queued; their late requests match nothing of this test's.
    provider?.reset();
  });
  afterAll(() => provider?.close());
  const current = (): MockProvider => {
    if (provider === undefined) throw new Error('the mock provider starts in beforeAll');
    return provider;
  };
  const ours = (request: RecordedRequest) =>
    request.model !== undefined && matcher.test(request.model);
  return {
    get url() {
      return current().url;
    },
    get port() {
      return current().port;
    },
    get openaiBaseUrl() {
      return current().openaiBaseUrl;
    },
    get anthropicBaseUrl() {
      return current().anthropicBaseUrl;
    },
    get model() {
      return model;
    },
    get requests() {
      return current().requests.filter(ours);
    },
    enqueue(...entries) {
      current().enqueue(
        ...entries.map((value) =>
          isEntry(value)
            ? { ...value, match: { model: matcher } }
            : { behavior: value, match: { model: matcher } },
        ),
      );
    },
    pending() {
      // After `reset()` in `beforeEach` the queue holds only this test's entries.
      return current().pending();
    },
  };
}
