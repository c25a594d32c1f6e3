import Anthropic from '@anthropic-ai/sdk';
import type { ModelEvent, ModelPort, ModelRequest } from '@keel/spec';
import OpenAI from 'openai';

/**
 * Test-only adapters that implement the model port with the real SDKs, so that every error the
 * compactor sees is one the SDK really throws. `maxRetries: 0`: retries are the compactor's job.
 */
export interface SdkPortOptions {
  baseUrl: string;
  model?: string;
  /** SDK request timeout in ms. */
  timeoutMs?: number;
  /** Called with every event before it is yielded (lets a test abort at a precise point). */
  onEvent?: (event: ModelEvent) => void;
  /**
   * Aborts the adapter's own request controller (never the caller's) while the call with this
   * 1-based number waits for its response, once `when` resolves: a provider-side abort, as a
   * watchdog would do it.
   */
  selfAbortOnCall?: { call: number; when: () => Promise<void> };
}

/** The request's messages as plain text turns (all the summarizer sends). */
function plainMessages(
  request: ModelRequest,
): Array<{ role: 'user' | 'assistant'; content: string }> {
  return request.messages.map((message) => ({
    role: message.role === 'assistant' ? 'assistant' : 'user',
    content:
      typeof message.content === 'string'
        ? message.content
        : message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
  }));
}

function linkSignals(outer: AbortSignal | undefined): AbortController {
  const controller = new AbortController();
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', () => controller.abort(outer.reason), { once: true });
  return controller;
}

export function createAnthropicPort(options: SdkPortOptions): Pick<ModelPort, 'stream'> {
  const client = new Anthropic({
    apiKey: 'test-key',
    baseURL: options.baseUrl,
    maxRetries: 0,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  });
  let calls = 0;
  return {
    async *stream(request, callOptions) {
      calls += 1;
      const call = calls;
      const controller = linkSignals(callOptions?.signal);
      if (options.selfAbortOnCall?.call === call) {
        void options.selfAbortOnCall.when().then(() => controller.abort());
      }
      const stream = await client.messages.create(
        {
          model: request.model ?? options.model ?? 'mock-summarizer',
          max_tokens: request.maxTokens ?? 1024,
          ...(request.system === undefined ? {} : { system: request.system }),
          messages: plainMessages(request),
          stream: true,
        },
        { signal: controller.signal },
      );
      for await (const event of stream) {
        let mapped: ModelEvent | undefined;
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
          mapped = { type: 'text-delta', text: event.delta.text };
        } else if (event.type === 'message_delta' && event.delta.stop_reason !== null) {
          const reason = event.delta.stop_reason;
          mapped = {
            type: 'finish',
            reason:
              reason === 'max_tokens' ? 'length' : reason === 'refusal' ? 'content-filter' : 'stop',
          };
        }
        if (mapped === undefined) continue;
        options.onEvent?.(mapped);
        yield mapped;
      }
    },
  };
}

export function createOpenAIPort(options: SdkPortOptions): Pick<ModelPort, 'stream'> {
  const client = new OpenAI({
    apiKey: 'test-key',
    baseURL: options.baseUrl,
    maxRetries: 0,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  });
  return {
    async *stream(request, callOptions) {
      const stream = await client.chat.completions.create(
        {
          model: request.model ?? options.model ?? 'mock-summarizer',
          messages: [
            ...(request.system === undefined
              ? []
              : [{ role: 'system' as const, content: request.system }]),
            ...plainMessages(request),
          ],
          stream: true,
        },
        callOptions?.signal === undefined ? {} : { signal: callOptions.signal },
      );
      for await (const chunk of stream) {
        const choice = chunk.choices[0];
        const events: ModelEvent[] = [];
        if (typeof choice?.delta?.content === 'string' && choice.delta.content.length > 0) {
          events.push({ type: 'text-delta', text: choice.delta.content });
        }
        if (choice?.finish_reason) {
          events.push({
            type: 'finish',
            reason: choice.finish_reason === 'length' ? 'length' : 'stop',
          });
        }
        for (const event of events) {
          options.onEvent?.(event);
          yield event;
        }
      }
    },
  };
}
