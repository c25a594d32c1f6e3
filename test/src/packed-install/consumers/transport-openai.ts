// @keel/transport with `openai` as its only SDK: Chat Completions loaded by the transport itself,
// Responses through a client the application made; Anthropic's API names the missing SDK.
import { createTransport, type Transport } from '@keel/transport';
import OpenAI from 'openai';
import { missingSdk, streamAll, type TransportInput } from './transport-stream.js';

/** Never called: it proves the options are typed, not `any`. */
export function notAnApi(): Transport {
  // @ts-expect-error -- not an API.
  return createTransport({ api: 'not-an-api', model: 'm' });
}

export async function consume(input: TransportInput): Promise<unknown> {
  const chat: Transport = createTransport({
    api: 'openai-chat',
    baseUrl: input.baseUrl,
    apiKey: 'sk-packed-install',
    model: input.model,
    maxRetries: 0,
  });
  const client = new OpenAI({ apiKey: 'sk-packed-install', baseURL: input.baseUrl });
  const responses = createTransport({ api: 'openai-responses', client, model: input.model });
  return {
    chat: await streamAll(chat),
    responses: await streamAll(responses),
    anthropic: await missingSdk(createTransport({ api: 'anthropic-messages', model: input.model })),
  };
}
