// Shared by the two transport consumers: stream one request, and report how an API whose SDK is not
// installed fails. Only `@keel/transport`'s public API.
import { MissingSdkError, type ModelEvent, type Transport } from '@keel/transport';

export interface TransportInput {
  /** The loopback provider's base URL for the installed SDK. */
  baseUrl: string;
  /** This run's model, so the shared provider answers it from this run's script. */
  model: string;
}

/** Streams one request: the text it produced, and every other event in order. */
export async function streamAll(
  transport: Transport,
): Promise<{ text: string; tail: ModelEvent[] }> {
  let text = '';
  const tail: ModelEvent[] = [];
  const request = { messages: [{ role: 'user' as const, content: 'Say hello.' }] };
  for await (const event of transport.stream(request, { signal: AbortSignal.timeout(120_000) })) {
    if (event.type === 'text-delta') text += event.text;
    else tail.push(event);
  }
  return { text, tail };
}

/** Streams `transport` expecting it to fail for want of its SDK; what it threw. */
export async function missingSdk(transport: Transport): Promise<unknown> {
  try {
    await streamAll(transport);
    return { thrown: false };
  } catch (error) {
    if (!MissingSdkError.isInstance(error)) throw error;
    return {
      api: transport.api,
      name: error.name,
      packageName: error.packageName,
      namesInstall: error.message.includes(`npm install ${error.packageName}`),
    };
  }
}
