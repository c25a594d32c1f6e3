import type { ModelRequest } from '@keel/spec';
import type { AnthropicClientLike, AnthropicSdk } from './anthropic-client-like';
import { createSdkTransport, sdkSpecBase } from './create-sdk-transport';
import { anthropicMessageAsEvents } from './from-anthropic-message';
import {
  type AnthropicMessagesEvent,
  fromAnthropicMessagesStream,
  isAnthropicOutputEvent,
} from './from-anthropic-messages-stream';
import { loadSdk } from './load-sdk';
import { oneByOne } from './one-by-one';
import { sdkClientOptions } from './sdk-client-options';
import { toAnthropicMessages } from './to-anthropic-messages';
import type { AnthropicMessagesTransportOptions } from './transport-options';
import type { Transport } from './types';

export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/** The SDK's own default request timeout (10 minutes). */
const SDK_DEFAULT_TIMEOUT_MS = 600_000;

// Not exported: the module's type is checked against `AnthropicSdk` here and never reaches our `.d.ts`.
const importAnthropic = (): Promise<AnthropicSdk> => import('@anthropic-ai/sdk');

/** The Anthropic Messages API: streamed, or one non-streamed call for `delivery: 'whole'`. */
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
  const body = (request: ModelRequest, model: string) =>
    toAnthropicMessages(request, {
      model,
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    });
  return createSdkTransport<AnthropicMessagesEvent>({
    api: 'anthropic-messages',
    ...sdkSpecBase(options, {
      vendor: 'anthropic',
      baseUrl: options.client?.baseURL ?? options.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL,
      client: () => built,
    }),
    async open(request, context) {
      const { data, response } = await (await client()).messages
        .create(body(request, context.model), {
          signal: context.signal,
          maxRetries: context.maxRetries,
        })
        .withResponse();
      return { status: response.status, chunks: data };
    },
    async openWhole(request, context) {
      const { stream: _stream, ...streamed } = body(request, context.model);
      const { data, response } = await (await client()).messages
        .create(
          { ...streamed, stream: false },
          {
            signal: context.signal,
            maxRetries: context.maxRetries,
            // Set, so the SDK does not refuse a large `max_tokens` unstreamed; ours fires first.
            timeout: (context.timeoutMs ?? SDK_DEFAULT_TIMEOUT_MS) + 1_000,
          },
        )
        .withResponse();
      return { status: response.status, chunks: oneByOne(anthropicMessageAsEvents(data)) };
    },
    isOutput: isAnthropicOutputEvent,
    decode: fromAnthropicMessagesStream,
  });
}
