// The common Chat Completions body — text messages, sampling and streaming fields — recognised in
// one pass without the schema's parse, which costs more per request than the rest of the handler.
// It only ever says yes to bodies the schema accepts (and reads the same); any other body, valid or
// not, goes to the schema, which validates it and words its problems.
import type { ChatRequest } from './chat-request-schema';

/** Roles whose message is only `role` and `content` in the common case. */
const TEXT_ROLES = new Set(['system', 'developer', 'user', 'assistant']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOptional(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || value === null || check(value);
}

const isBoolean = (value: unknown) => typeof value === 'boolean';
const isString = (value: unknown) => typeof value === 'string';
const isTokenCount = (value: unknown) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
const inRange = (low: number, high: number) => (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value >= low && value <= high;

/** Each field the common body may carry, and what its value must be. */
const FIELDS: Record<string, (value: unknown) => boolean> = {
  stream: isBoolean,
  stream_options: (value) => isRecord(value) && isOptional(value['include_usage'], isBoolean),
  temperature: inRange(0, 2),
  top_p: inRange(0, 1),
  max_tokens: isTokenCount,
  max_completion_tokens: isTokenCount,
  user: isString,
};

/** The schema's fields the common body leaves to the schema when they are set. */
const SCHEMA_FIELDS = new Set(['tools', 'tool_choice', 'stop', 'response_format', 'n']);

function isTextMessage(message: unknown): boolean {
  return (
    isRecord(message) &&
    typeof message['role'] === 'string' &&
    TEXT_ROLES.has(message['role']) &&
    typeof message['content'] === 'string' &&
    (message['tool_calls'] === undefined || message['tool_calls'] === null)
  );
}

/**
 * The body as the schema would read it when it is a common one: a non-empty `model`, one or more
 * text messages (`system`, `developer`, `user`, `assistant`, each with string `content`), and only
 * the sampling and streaming fields, each valid; otherwise `undefined`. Fields the schema does not
 * know are ignored, as the schema ignores them.
 */
export function plainChatRequest(body: unknown): ChatRequest | undefined {
  if (!isRecord(body)) return undefined;
  const { model, messages } = body;
  if (typeof model !== 'string' || model === '') return undefined;
  if (!Array.isArray(messages) || messages.length === 0 || !messages.every(isTextMessage)) {
    return undefined;
  }
  for (const key of Object.keys(body)) {
    const value = body[key];
    const check = FIELDS[key];
    if (check !== undefined) {
      if (!isOptional(value, check)) return undefined;
    } else if (SCHEMA_FIELDS.has(key) && value !== undefined) {
      return undefined;
    }
  }
  return body as ChatRequest;
}
