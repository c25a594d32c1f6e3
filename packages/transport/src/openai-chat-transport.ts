import type { ModelRequest } from '@keel/spec';
import { createOpenAIClient } from './create-openai-client';
import { createSdkTransport, type OpenStreamContext, sdkSpecBase } from './create-sdk-transport';
import { chatCompletionAsChunk } from './from-openai-chat-completion';
import {
  fromOpenAIChatStream,
  isOpenAIChatOutputChunk,
  type OpenAIChatChunk,
} from './from-openai-chat-stream';
import { oneByOne } from './one-by-one';
import { toOpenAIChat } from './to-openai-chat';
import type { OpenAIChatTransportOptions } from './transport-options';
import type { Transport } from './types';

/**
 * Chat Completions, for OpenAI and every OpenAI-compatible server (`baseUrl`): streamed, or one
 * non-streamed call for a request with `delivery: 'whole'`.
 */
export function createOpenAIChatTransport(options: OpenAIChatTransportOptions): Transport {
  const handle = createOpenAIClient(options);
  const body = (request: ModelRequest, context: OpenStreamContext) =>
    toOpenAIChat(request, {
      model: context.model,
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      ...(options.maxTokensField === undefined ? {} : { maxTokensField: options.maxTokensField }),
      ...(options.includeUsage === undefined ? {} : { includeUsage: options.includeUsage }),
    });
  return createSdkTransport<OpenAIChatChunk>({
    api: 'openai-chat',
    ...sdkSpecBase(options, {
      vendor: 'openai',
      baseUrl: handle.baseUrl,
      client: handle.current,
    }),
    async open(request, context) {
      const { client } = await handle.get();
      const { data, response } = await client.chat.completions
        .create(body(request, context), { signal: context.signal, maxRetries: context.maxRetries })
        .withResponse();
      return { status: response.status, chunks: data };
    },
    async openWhole(request, context) {
      const { stream: _stream, stream_options: _usage, ...streamed } = body(request, context);
      const { client } = await handle.get();
      const { data, response } = await client.chat.completions
        .create(
          { ...streamed, stream: false },
          { signal: context.signal, maxRetries: context.maxRetries },
        )
        .withResponse();
      return { status: response.status, chunks: oneByOne([chatCompletionAsChunk(data)]) };
    },
    isOutput: isOpenAIChatOutputChunk,
    decode: fromOpenAIChatStream,
  });
}
