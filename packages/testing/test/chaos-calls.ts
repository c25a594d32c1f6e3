import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { MockApi, MockProvider, RecordedRequest } from '../src/mock-provider-types';

/** One real SDK call against a (chaos) mock, consumed to its end. */
export interface ChaosCall {
  /** The request as the mock recorded it (with `chaos` when a fault was injected). */
  record: RecordedRequest;
  /** Event types (streaming) in order; `['response']` for a non-streaming answer. */
  events: string[];
  /** Text deltas received (streaming) or the answer's text (non-streaming). */
  texts: string[];
  /** The terminal event arrived (`message_stop`, a `finish_reason`, `response.completed`). */
  complete: boolean;
  /** What the SDK threw, if anything. */
  error: unknown;
  /** The call was aborted by this helper: the mock hangs or stalls for good. */
  aborted: boolean;
}

export interface ChaosCallOptions {
  stream: boolean;
  model?: string;
  apiKey?: string;
  text?: string;
}

/**
 * Makes one call with the real SDK (no retries) and waits for its request to reach the mock
 * (event-driven). A hang or stall never ends by itself: the call is aborted once everything the
 * fault sends has arrived (headers and the stall's text deltas), so what arrived is
 * deterministic. Calls must be made one at a time per provider.
 */
export async function chaosCall(
  mock: MockProvider,
  api: MockApi,
  options: ChaosCallOptions,
): Promise<ChaosCall> {
  const controller = new AbortController();
  const result: Omit<ChaosCall, 'record'> = {
    events: [],
    texts: [],
    complete: false,
    error: undefined,
    aborted: false,
  };
  let opened = false;
  let stallAfter: number | undefined;
  const abortWhenSilent = () => {
    const silent = stallAfter !== undefined && opened && result.texts.length >= stallAfter;
    if (silent && !controller.signal.aborted) {
      result.aborted = true;
      controller.abort();
    }
  };
  const onOpen = () => {
    opened = true;
    abortWhenSilent();
  };
  const onEvent = (type: string, text: string | undefined, terminal: boolean) => {
    result.events.push(type);
    if (text) result.texts.push(text);
    if (terminal) result.complete = true;
    abortWhenSilent();
  };
  const count = mock.requests.length + 1;
  const running = run(mock, api, options, controller.signal, { onOpen, onEvent }).catch(
    (error: unknown) => {
      result.error = error;
    },
  );
  const record = (await mock.waitForRequests(count))[count - 1]!;
  const behavior = record.chaos?.behavior;
  if (behavior?.type === 'hang' || (behavior?.type === 'stall' && !options.stream)) {
    result.aborted = true;
    controller.abort();
  } else if (behavior?.type === 'stall') {
    stallAfter = behavior.afterChunks ?? 0;
    abortWhenSilent();
  }
  await running;
  return { record, ...result };
}

interface Listeners {
  onOpen(): void;
  onEvent(type: string, text: string | undefined, terminal: boolean): void;
}

async function run(
  mock: MockProvider,
  api: MockApi,
  options: ChaosCallOptions,
  signal: AbortSignal,
  listeners: Listeners,
): Promise<void> {
  const apiKey = options.apiKey ?? 'sk-chaos';
  const content = options.text ?? 'hello';
  const messages = [{ role: 'user' as const, content }];
  if (api === 'anthropic-messages') {
    const client = new Anthropic({ apiKey, baseURL: mock.anthropicBaseUrl, maxRetries: 0 });
    const body = { model: options.model ?? 'claude-chaos', max_tokens: 64, messages };
    if (!options.stream) {
      const message = await client.messages.create(body, { signal });
      const text = message.content.map((block) => (block.type === 'text' ? block.text : ''));
      listeners.onEvent('response', text.join(''), true);
      return;
    }
    const stream = await client.messages.create({ ...body, stream: true }, { signal });
    listeners.onOpen();
    for await (const event of stream) {
      const delta = event.type === 'content_block_delta' ? event.delta : undefined;
      const text = delta?.type === 'text_delta' ? delta.text : undefined;
      listeners.onEvent(event.type, text, event.type === 'message_stop');
    }
    return;
  }
  const client = new OpenAI({ apiKey, baseURL: mock.openaiBaseUrl, maxRetries: 0 });
  const model = options.model ?? 'gpt-chaos';
  if (api === 'openai-chat') {
    if (!options.stream) {
      const completion = await client.chat.completions.create({ model, messages }, { signal });
      listeners.onEvent('response', completion.choices[0]?.message.content ?? '', true);
      return;
    }
    const stream = await client.chat.completions.create(
      { model, messages, stream: true },
      { signal },
    );
    listeners.onOpen();
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      listeners.onEvent(
        'chunk',
        choice?.delta.content ?? undefined,
        Boolean(choice?.finish_reason),
      );
    }
    return;
  }
  if (!options.stream) {
    const response = await client.responses.create({ model, input: content }, { signal });
    listeners.onEvent('response', response.output_text, true);
    return;
  }
  const stream = await client.responses.create({ model, input: content, stream: true }, { signal });
  listeners.onOpen();
  for await (const event of stream) {
    const text = event.type === 'response.output_text.delta' ? event.delta : undefined;
    listeners.onEvent(event.type, text, event.type === 'response.completed');
  }
}
