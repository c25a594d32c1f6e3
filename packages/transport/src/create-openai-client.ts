import { loadSdk } from './load-sdk';
import type { OpenAIClientLike, OpenAISdk } from './openai-client-like';
import { sdkClientOptions } from './sdk-client-options';
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
  /** The client, once `get()` has resolved it. */
  current(): OpenAIClientLike | undefined;
  /** The base URL requests go to (unsanitized: it may hold credentials). */
  readonly baseUrl: string;
}

/** Lazily loads `openai` and builds (or takes) the client. */
export function createOpenAIClient(
  options: OpenAIChatTransportOptions | OpenAIResponsesTransportOptions,
): OpenAIClientHandle {
  let loading: Promise<{ sdk: OpenAISdk; client: OpenAIClientLike }> | undefined;
  let client: OpenAIClientLike | undefined;
  return {
    baseUrl: options.client?.baseURL ?? options.baseUrl ?? DEFAULT_OPENAI_BASE_URL,
    current: () => client,
    get() {
      loading ??= loadSdk('openai', options.api, options.loadSdk ?? importOpenAI).then((sdk) => {
        client = options.client ?? new sdk.OpenAI(sdkClientOptions(options));
        return { sdk, client };
      });
      return loading;
    },
  };
}
