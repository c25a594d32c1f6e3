import type { Usage } from '@keel/spec';
import { isRecord } from './is-record';

/** One stdout line of `claude -p --output-format stream-json --verbose`, reduced to what we use. */
export type CliMessage =
  | { type: 'init'; sessionId: string; model: string | undefined }
  | {
      type: 'assistant';
      /** `message.id`: the lines of one model message (one block each) share it. */
      messageId: string | undefined;
      blocks: unknown[];
      /** Lines the CLI wrote itself (API errors, login prompts): `model: "<synthetic>"`. */
      synthetic: boolean;
      /** Set for a subagent's messages; only top-level ones (`null`) become events. */
      parentToolUseId: string | null;
    }
  | {
      type: 'result';
      isError: boolean;
      subtype: string;
      text: string | undefined;
      errors: string[];
      status: number | undefined;
      errorType: string | undefined;
      stopReason: string | undefined;
      usage: Usage | undefined;
      sessionId: string | undefined;
    }
  /** The results of tools the CLI ran (a `user` line with `tool_result` blocks). */
  | {
      type: 'tool-results';
      results: Array<{ toolUseId: string; content: string; isError: boolean }>;
      /** Set for a subagent's tool results; only top-level ones (`null`) become events. */
      parentToolUseId: string | null;
    }
  /** Anything else (other `user` lines, `system/api_retry`, `stream_event`, unknown types). */
  | { type: 'other'; kind: string };

function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A tool result's content as text: a string, or its text parts joined (`[image]` for images). */
function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      if (!isRecord(part)) return '';
      if (part['type'] === 'text' && typeof part['text'] === 'string') return part['text'];
      return `[${asString(part['type']) ?? 'content'}]`;
    })
    .join('\n');
}

function parseToolResults(
  content: unknown,
): Extract<CliMessage, { type: 'tool-results' }>['results'] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((block) => {
    if (!isRecord(block) || block['type'] !== 'tool_result') return [];
    const toolUseId = asString(block['tool_use_id']);
    if (toolUseId === undefined) return [];
    return [
      { toolUseId, content: toolResultText(block['content']), isError: block['is_error'] === true },
    ];
  });
}

/** The result's Anthropic-shaped usage: `inputTokens` adds the cache reads and writes to `input_tokens`. */
function parseUsage(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined;
  const cacheRead = asNumber(value['cache_read_input_tokens']);
  const cacheWrite = asNumber(value['cache_creation_input_tokens']);
  return {
    inputTokens: (asNumber(value['input_tokens']) ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0),
    outputTokens: asNumber(value['output_tokens']) ?? 0,
    ...(cacheRead === undefined ? {} : { cacheReadTokens: cacheRead }),
    ...(cacheWrite === undefined ? {} : { cacheWriteTokens: cacheWrite }),
  };
}

/** Parses one line; `undefined` for a line that is not a JSON object (blank, log noise). */
export function parseCliMessage(line: string): CliMessage | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const type = asString(value['type']) ?? 'unknown';
  if (type === 'system' && value['subtype'] === 'init') {
    const sessionId = asString(value['session_id']) ?? asString(value['sessionId']);
    if (sessionId !== undefined) {
      return { type: 'init', sessionId, model: asString(value['model']) };
    }
  }
  if (type === 'assistant' && isRecord(value['message'])) {
    const message = value['message'];
    return {
      type: 'assistant',
      messageId: asString(message['id']),
      blocks: Array.isArray(message['content']) ? message['content'] : [],
      synthetic: message['model'] === '<synthetic>',
      parentToolUseId: asString(value['parent_tool_use_id']) ?? null,
    };
  }
  if (type === 'user' && isRecord(value['message'])) {
    const results = parseToolResults(value['message']['content']);
    if (results.length > 0) {
      return {
        type: 'tool-results',
        results,
        parentToolUseId: asString(value['parent_tool_use_id']) ?? null,
      };
    }
  }
  if (type === 'result') {
    const errors = Array.isArray(value['errors'])
      ? value['errors'].filter((error): error is string => typeof error === 'string')
      : [];
    const subtype = asString(value['subtype']) ?? 'success';
    return {
      type: 'result',
      isError: value['is_error'] === true || subtype.startsWith('error'),
      subtype,
      text: asString(value['result']),
      errors,
      status: asNumber(value['api_error_status']),
      errorType: asString(value['api_error_type']) ?? asString(value['error']),
      stopReason: asString(value['stop_reason']),
      usage: parseUsage(value['usage']),
      sessionId: asString(value['session_id']),
    };
  }
  return { type: 'other', kind: type };
}
