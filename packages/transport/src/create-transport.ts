import { createAnthropicMessagesTransport } from './anthropic-messages-transport';
import { type ClaudeCliTransportOptions, createClaudeCliTransport } from './claude-cli';
import { createOpenAIChatTransport } from './openai-chat-transport';
import { createOpenAIResponsesTransport } from './openai-responses-transport';
import type {
  AnthropicMessagesTransportOptions,
  OpenAIChatTransportOptions,
  OpenAIResponsesTransportOptions,
} from './transport-options';
import type { Transport } from './types';

/** `createClaudeCliTransport`'s options, selected with `api: 'claude-cli'`. */
export interface ClaudeCliApiOptions extends ClaudeCliTransportOptions {
  api: 'claude-cli';
}

/** Options of `createTransport`, discriminated on `api`. */
export type TransportOptions =
  | OpenAIChatTransportOptions
  | OpenAIResponsesTransportOptions
  | AnthropicMessagesTransportOptions
  | ClaudeCliApiOptions;

/** One streaming model call over the chosen API. The SDK it needs is loaded on first use. */
export function createTransport(options: TransportOptions): Transport {
  switch (options.api) {
    case 'openai-chat':
      return createOpenAIChatTransport(options);
    case 'openai-responses':
      return createOpenAIResponsesTransport(options);
    case 'anthropic-messages':
      return createAnthropicMessagesTransport(options);
    case 'claude-cli': {
      const { api: _api, ...cliOptions } = options;
      return createClaudeCliTransport(cliOptions);
    }
    default: {
      const unexpected: never = options;
      throw new TypeError(
        `Unknown transport api: ${String((unexpected as { api?: unknown }).api)}`,
      );
    }
  }
}
