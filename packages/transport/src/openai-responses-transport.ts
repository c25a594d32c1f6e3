import { createOpenAIClient } from './create-openai-client';
import { createSdkTransport, sdkSpecBase } from './create-sdk-transport';
import {
  fromOpenAIResponsesStream,
  isOpenAIResponsesOutputEvent,
  type OpenAIResponsesEvent,
} from './from-openai-responses-stream';
import type { OpenAISdk } from './openai-client-like';
import { responsesStreamError } from './responses-stream-error';
import { toOpenAIResponses } from './to-openai-responses';
import type { OpenAIResponsesTransportOptions } from './transport-options';
import type { Transport } from './types';

/** The OpenAI Responses API (stateless: `store: false`, the whole history each call). */
export function createOpenAIResponsesTransport(
  options: OpenAIResponsesTransportOptions,
): Transport {
  const handle = createOpenAIClient(options);
  let sdk: OpenAISdk | undefined;
  return createSdkTransport<OpenAIResponsesEvent>({
    api: 'openai-responses',
    ...sdkSpecBase(options, {
      vendor: 'openai',
      baseUrl: handle.baseUrl,
      client: handle.current,
    }),
    async open(request, context) {
      const body = toOpenAIResponses(request, {
        model: context.model,
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      });
      const loaded = await handle.get();
      sdk = loaded.sdk;
      const { data, response } = await loaded.client.responses
        .create(body, { signal: context.signal, maxRetries: context.maxRetries })
        .withResponse();
      return { status: response.status, chunks: data };
    },
    isOutput: isOpenAIResponsesOutputEvent,
    decode: (chunks) =>
      fromOpenAIResponsesStream(chunks, {
        createStreamError: (failure) => responsesStreamError(sdk, failure),
      }),
  });
}
