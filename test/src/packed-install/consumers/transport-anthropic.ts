// @keel/transport with `@anthropic-ai/sdk` as its only SDK: Messages loaded by the transport
// itself and through a client the application made; both OpenAI APIs name the missing SDK.
import Anthropic from '@anthropic-ai/sdk';
import { createTransport, type Transport } from '@keel/transport';
import { missingSdk, streamAll, type TransportInput } from './transport-stream.js';

/** Never called: it proves the options are typed, not `any`. */
export function notAnApi(): Transport {
  // @ts-expect-error -- not an API.
  return createTransport({ api: 'not-an-api', model: 'm' });
}

export async function consume(input: TransportInput): Promise<unknown> {
  const loaded: Transport = createTransport({
    api: 'anthropic-messages',
    baseUrl: input.baseUrl,
    apiKey: 'sk-packed-install',
    model: input.model,
    maxRetries: 0,
  });
  const client = new Anthropic({ apiKey: 'sk-packed-install', baseURL: input.baseUrl });
  const given = createTransport({ api: 'anthropic-messages', client, model: input.model });
  return {
    loaded: await streamAll(loaded),
    given: await streamAll(given),
    openaiChat: await missingSdk(createTransport({ api: 'openai-chat', model: input.model })),
    openaiResponses: await missingSdk(
      createTransport({ api: 'openai-responses', model: input.model }),
    ),
  };
}
