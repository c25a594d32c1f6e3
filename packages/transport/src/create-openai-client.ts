import { DEFAULT_MAX_RETRIES } from './create-sdk-transport';
import { loadSdk } from './load-sdk';
import type { OpenAIClientLike, OpenAISdk } from './openai-client-like';
import { sanitizeUrl } from './sanitize-url';
import type {
  OpenAIChatTransportOptions,
  OpenAIResponsesTransportOptions,
} from './transport-options';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

// Not exported: the module's type is checked against `OpenAISdk` here and never reaches our `.d.ts`.
const importOpenAI = (): Promise<OpenAISdk> => import('openai');

export interface OpenAIClientHandle {
  /** Resolves the SDK module and a client, once, on first use. */
  get(): Promise<{ sdk: OpenAISdk; client: OpenAIClientLike }>;
  /** Sanitized base URL for hooks. */
  readonly url: string;
}

/** Lazily loads `openai` and builds (or takes) the client. */
export function createOpenAIClient(
  options: OpenAIChatTransportOptions | OpenAIResponsesTransportOptions,
): OpenAIClientHandle {
  let loading: Promise<{ sdk: OpenAISdk; client: OpenAIClientLike }> | undefined;
  const url = sanitizeUrl(options.client?.baseURL ?? options.baseUrl ?? DEFAULT_OPENAI_BASE_URL);
  return {
    url,
    get() {
      loading ??= loadSdk('openai', options.api, options.loadSdk ?? importOpenAI).then((sdk) => ({
        sdk,
        client:
          options.client ??
          new sdk.OpenAI({
            ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
            ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
            ...(options.defaultHeaders === undefined
              ? {}
              : { defaultHeaders: options.defaultHeaders }),
            maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
          }),
      }));
      return loading;
    },
  };
}
