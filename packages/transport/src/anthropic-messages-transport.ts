import type { AnthropicClientLike, AnthropicSdk } from './anthropic-client-like';
import { createSdkTransport, sdkSpecBase } from './create-sdk-transport';
import {
  type AnthropicMessagesEvent,
  fromAnthropicMessagesStream,
  isAnthropicOutputEvent,
} from './from-anthropic-messages-stream';
import { loadSdk } from './load-sdk';
import { sdkClientOptions } from './sdk-client-options';
import { toAnthropicMessages } from './to-anthropic-messages';
import type { AnthropicMessagesTransportOptions } from './transport-options';
import type { Transport } from './types';

export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

// Not exported: the module's type is checked against `AnthropicSdk` here and never reaches our `.d.ts`.
const importAnthropic = (): Promise<AnthropicSdk> => import('@anthropic-ai/sdk');

/** The Anthropic Messages API. */
export function createAnthropicMessagesTransport(
  options: AnthropicMessagesTransportOptions,
): Transport {
  let loading: Promise<AnthropicClientLike> | undefined;
  let built: AnthropicClientLike | undefined;
  const client = () => {
    loading ??= loadSdk(
      '@anthropic-ai/sdk',
      'anthropic-messages',
      options.loadSdk ?? importAnthropic,
    ).then((sdk) => {
      built = options.client ?? new sdk.Anthropic(sdkClientOptions(options));
      return built;
    });
    return loading;
  };
  return createSdkTransport<AnthropicMessagesEvent>({
    api: 'anthropic-messages',
    ...sdkSpecBase(options, {
      vendor: 'anthropic',
      baseUrl: options.client?.baseURL ?? options.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL,
      client: () => built,
    }),
    async open(request, context) {
      const body = toAnthropicMessages(request, {
        model: context.model,
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      });
      const { data, response } = await (await client()).messages
        .create(body, { signal: context.signal, maxRetries: context.maxRetries })
        .withResponse();
      return { status: response.status, chunks: data };
    },
    isOutput: isAnthropicOutputEvent,
    decode: fromAnthropicMessagesStream,
  });
}
