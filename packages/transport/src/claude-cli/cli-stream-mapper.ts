import type { FinishReason, ModelEvent } from '@keel/spec';
import { mapAnthropicStopReason } from '../from-anthropic-messages-stream';
import { isRecord } from './is-record';
import type { CliMessage } from './parse-cli-message';

export type CliResult = Extract<CliMessage, { type: 'result' }>;
type CliAssistant = Extract<CliMessage, { type: 'assistant' }>;

export interface CliStreamMapperOptions {
  /** The gateway session; without it no `session-bound` event is produced. */
  sessionId: string | undefined;
  /** Whether the run was started with `--resume`. */
  resumed: boolean;
}

/**
 * Turns the CLI's stream-json messages into model events, remembering what the end needs. The CLI
 * runs its own tools: each `tool_use` it reports is a call already made (`tool-call`), and the
 * `tool_result` blocks of its `user` lines become `tool-result` events, so a caller can record
 * both and its transcript has no orphan. Texts of consecutive assistant messages are kept apart
 * by a paragraph break.
 */
export interface CliStreamMapper {
  /** Events for one message (the terminal `usage` / `finish` come from `finish()`). */
  map(message: CliMessage): ModelEvent[];
  /** The CLI session id from `system/init` (or the `result`), once seen. */
  readonly cliSessionId: string | undefined;
  /** The `result` message, once seen. */
  readonly result: CliResult | undefined;
  /** Texts of the CLI's own synthetic assistant lines (`API Error: …`). */
  readonly syntheticTexts: readonly string[];
  /** Ids of the top-level tool calls the CLI made in this run, in order (it runs them itself). */
  readonly toolCallIds: readonly string[];
  /** `usage` (when the result has it) and `finish`, for a successful run. */
  finish(): ModelEvent[];
}

/** The CLI reports the Messages API's `stop_reason`; a result without one ended normally. */
export function finishReason(stopReason: string | undefined): FinishReason {
  return stopReason === undefined ? 'stop' : mapAnthropicStopReason(stopReason);
}

export function createCliStreamMapper(options: CliStreamMapperOptions): CliStreamMapper {
  let cliSessionId: string | undefined;
  let result: CliResult | undefined;
  const syntheticTexts: string[] = [];
  const toolCallIds: string[] = [];
  /** The message whose text came last, and whether any text came yet. */
  let lastTextMessage: string | undefined;
  let textSeen = false;

  /** Text deltas and tool calls of a top-level, model-written assistant message. */
  function assistantEvents(message: CliAssistant): ModelEvent[] {
    const events: ModelEvent[] = [];
    for (const block of message.blocks) {
      if (!isRecord(block)) continue;
      if (block['type'] === 'text' && typeof block['text'] === 'string' && block['text'] !== '') {
        // A new message's text after earlier text: without a break the two would run together.
        const newMessage = message.messageId === undefined || message.messageId !== lastTextMessage;
        const text = textSeen && newMessage ? `\n\n${block['text']}` : block['text'];
        lastTextMessage = message.messageId;
        textSeen = true;
        events.push({ type: 'text-delta', text });
      } else if (block['type'] === 'tool_use' && typeof block['id'] === 'string') {
        toolCallIds.push(block['id']);
        events.push({
          type: 'tool-call',
          id: block['id'],
          name: typeof block['name'] === 'string' ? block['name'] : 'unknown',
          input: isRecord(block['input']) ? block['input'] : {},
        });
      }
    }
    return events;
  }

  return {
    get cliSessionId() {
      return cliSessionId;
    },
    get result() {
      return result;
    },
    syntheticTexts,
    toolCallIds,
    map(message) {
      switch (message.type) {
        case 'init':
          cliSessionId = message.sessionId;
          return options.sessionId === undefined
            ? []
            : [
                {
                  type: 'session-bound',
                  sessionId: options.sessionId,
                  cliSessionId: message.sessionId,
                  resumed: options.resumed,
                },
              ];
        case 'assistant':
          if (message.synthetic) {
            for (const block of message.blocks) {
              if (isRecord(block) && typeof block['text'] === 'string') {
                syntheticTexts.push(block['text']);
              }
            }
            return [];
          }
          return message.parentToolUseId === null ? assistantEvents(message) : [];
        case 'tool-results':
          if (message.parentToolUseId !== null) return [];
          return message.results.map((entry) => ({
            type: 'tool-result',
            toolUseId: entry.toolUseId,
            content: entry.content,
            ...(entry.isError ? { isError: true } : {}),
          }));
        case 'result':
          result = message;
          cliSessionId ??= message.sessionId;
          return [];
        case 'other':
          return [];
        default: {
          const unreachable: never = message;
          throw new TypeError(`Unhandled CLI message ${JSON.stringify(unreachable)}`);
        }
      }
    },
    finish() {
      const events: ModelEvent[] = [];
      if (result?.usage !== undefined) events.push({ type: 'usage', ...result.usage });
      events.push({ type: 'finish', reason: finishReason(result?.stopReason) });
      return events;
    },
  };
}
