import { createOpenAIClient } from './create-openai-client';
import { createSdkTransport, sdkSpecBase } from './create-sdk-transport';
import {
  fromOpenAIChatStream,
  isOpenAIChatOutputChunk,
  type OpenAIChatChunk,
} from './from-openai-chat-stream';
import { toOpenAIChat } from './to-openai-chat';
import type { OpenAIChatTransportOptions } from './transport-options';
import type { Transport } from './types';

/** Chat Completions, for OpenAI and every OpenAI-compatible server (`baseUrl`). */
export function createOpenAIChatTransport(options: OpenAIChatTransportOptions): Transport {
  const handle = createOpenAIClient(options);
  return createSdkTransport<OpenAIChatChunk>({
    api: 'openai-chat',
    ...sdkSpecBase(options, {
      vendor: 'openai',
      baseUrl: handle.baseUrl,
      client: handle.current,
    }),
    async open(request, context) {
      const body = toOpenAIChat(request, {
        model: context.model,
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
        ...(options.maxTokensField === undefined ? {} : { maxTokensField: options.maxTokensField }),
        ...(options.includeUsage === undefined ? {} : { includeUsage: options.includeUsage }),
      });
      const { client } = await handle.get();
      const { data, response } = await client.chat.completions
        .create(body, { signal: context.signal, maxRetries: context.maxRetries })
        .withResponse();
      return { status: response.status, chunks: data };
    },
    isOutput: isOpenAIChatOutputChunk,
    decode: fromOpenAIChatStream,
  });
}
