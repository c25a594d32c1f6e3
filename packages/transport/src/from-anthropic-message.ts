// A non-streamed Messages answer read as the events a stream of it would have sent, so that the
// stream's decoder (tool_use blocks, stop reasons, usage with cache counts) reads both alike.
import type { AnthropicMessagesEvent, AnthropicUsage } from './from-anthropic-messages-stream';
import { MalformedResponseError } from './transport-error';

/** The fields of a `message` the transport reads (the SDK's `Message` fits). */
export interface AnthropicMessage {
  content: Array<{ type: string; id?: string; name?: string; input?: unknown; text?: string }>;
  stop_reason?: string | null;
  usage?: AnthropicUsage;
}

/**
 * `message_start` (with the usage), a start and a stop per content block (text whole, tool input
 * whole), `message_delta` (the stop reason) and `message_stop`. An answer without a content array
 * throws `MalformedResponseError`.
 */
export function anthropicMessageAsEvents(message: AnthropicMessage): AnthropicMessagesEvent[] {
  if (!Array.isArray(message?.content)) {
    throw new MalformedResponseError({ message: 'The Messages answer has no content.' });
  }
  const usage = message.usage ?? {};
  const events: AnthropicMessagesEvent[] = [{ type: 'message_start', message: { usage } }];
  message.content.forEach((block, index) => {
    events.push({ type: 'content_block_start', index, content_block: block });
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: message.stop_reason ?? null } });
  events.push({ type: 'message_stop' });
  return events;
}
