import type { ContentBlock, ErrorKind, Role, TranscriptEntry, TurnOutcomeKind } from '@keel/spec';

type Validation = { ok: true; entry: TranscriptEntry } | { ok: false; detail: string };

const roles: ReadonlySet<string> = new Set<Role>(['user', 'assistant', 'tool']);
const outcomes: ReadonlySet<string> = new Set<TurnOutcomeKind>([
  'reply',
  'resend',
  'error',
  'aborted',
]);
/** Every `ErrorKind`; a `Record` so a kind added to the spec is a compile error here until listed. */
const errorKindTable: Record<ErrorKind, true> = {
  caller_abort: true,
  provider_abort: true,
  connection: true,
  timeout: true,
  rate_limit: true,
  overloaded: true,
  server_error: true,
  auth: true,
  billing: true,
  context_overflow: true,
  invalid_request: true,
  model_not_found: true,
  content_policy: true,
  session_takeover: true,
  coordination: true,
  storage: true,
  unknown: true,
};
const errorKinds: ReadonlySet<string> = new Set(Object.keys(errorKindTable));

/**
 * Checks that `value` is a current-format (version 2) transcript entry: the fields its type
 * requires, and the right type for every optional field it has. Unknown extra fields are kept.
 */
export function validateTranscriptEntry(value: Record<string, unknown>): Validation {
  if (typeof value['id'] !== 'string' || typeof value['timestamp'] !== 'string') {
    return { ok: false, detail: 'entry lacks a string id or timestamp' };
  }
  const detail = problemOf(value);
  return detail === undefined
    ? { ok: true, entry: value as unknown as TranscriptEntry }
    : { ok: false, detail };
}

function problemOf(value: Record<string, unknown>): string | undefined {
  switch (value['type']) {
    case 'message':
      return messageProblem(value);
    case 'compaction':
      return compactionProblem(value);
    case 'turn':
      return turnProblem(value);
    case 'model-selection':
      return modelSelectionProblem(value);
    default:
      return `unknown entry type ${JSON.stringify(value['type'])}`;
  }
}

/** Absent, or token counts: numbers, the cache ones optional. */
function isUsage(usage: unknown): boolean {
  if (usage === undefined) return true;
  if (!isRecord(usage)) return false;
  const counts = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'];
  return counts.every(
    (key, index) => (index >= 2 && usage[key] === undefined) || typeof usage[key] === 'number',
  );
}

function messageProblem(value: Record<string, unknown>): string | undefined {
  if (typeof value['messageId'] !== 'string') return 'message lacks a string messageId';
  if (typeof value['role'] !== 'string' || !roles.has(value['role'])) {
    return 'message has an unknown role';
  }
  const content = value['content'];
  if (!Array.isArray(content) || !content.every(isContentBlock)) {
    return 'message content is not an array of content blocks';
  }
  if (!isUsage(value['usage'])) return 'message usage is not { inputTokens, outputTokens }';
  return optionalStrings(value, ['clientMessageId', 'turnId', 'model', 'provider'], 'message');
}

function compactionProblem(value: Record<string, unknown>): string | undefined {
  const provenance = value['provenance'];
  if (typeof value['summary'] !== 'string' || !isRecord(provenance)) {
    return 'compaction entry lacks summary or provenance';
  }
  const firstKept = value['firstKeptEntryId'];
  if (firstKept !== null && typeof firstKept !== 'string') {
    return 'compaction firstKeptEntryId is not a string or null';
  }
  if (
    typeof provenance['producerId'] !== 'string' ||
    typeof provenance['sourceDigest'] !== 'string' ||
    !['attempts', 'tokensBefore', 'tokensAfter'].every((key) => typeof provenance[key] === 'number')
  ) {
    return 'compaction provenance lacks producerId, attempts, tokensBefore, tokensAfter or sourceDigest';
  }
  return undefined;
}

function turnProblem(value: Record<string, unknown>): string | undefined {
  if (
    typeof value['turnId'] !== 'string' ||
    !(value['phase'] === 'start' || value['phase'] === 'end')
  ) {
    return 'turn entry lacks turnId or phase';
  }
  const outcome = value['outcome'];
  if (outcome !== undefined && !(typeof outcome === 'string' && outcomes.has(outcome))) {
    return `turn outcome ${JSON.stringify(outcome)} is not reply, resend, error or aborted`;
  }
  const errorKind = value['errorKind'];
  if (errorKind !== undefined && !(typeof errorKind === 'string' && errorKinds.has(errorKind))) {
    return `turn errorKind ${JSON.stringify(errorKind)} is not an error kind`;
  }
  const retryAfterMs = value['retryAfterMs'];
  if (
    retryAfterMs !== undefined &&
    !(typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs >= 0)
  ) {
    return 'turn retryAfterMs is not a non-negative number';
  }
  if (!isUsage(value['usage'])) return 'turn usage is not { inputTokens, outputTokens }';
  const steered = value['steeredMessageIds'];
  if (
    steered !== undefined &&
    !(Array.isArray(steered) && steered.every((id) => typeof id === 'string'))
  ) {
    return 'turn steeredMessageIds is not an array of strings';
  }
  return optionalStrings(
    value,
    ['messageId', 'clientMessageId', 'text', 'model', 'provider'],
    'turn',
  );
}

function modelSelectionProblem(value: Record<string, unknown>): string | undefined {
  if (typeof value['model'] !== 'string' || value['model'] === '') {
    return 'model-selection entry lacks a model';
  }
  if (value['source'] !== 'user' && value['source'] !== 'healed') {
    return 'model-selection source is not user or healed';
  }
  return optionalStrings(value, ['turnId'], 'model-selection');
}

function optionalStrings(
  value: Record<string, unknown>,
  keys: readonly string[],
  what: string,
): string | undefined {
  for (const key of keys) {
    if (value[key] !== undefined && typeof value[key] !== 'string') {
      return `${what} ${key} is not a string`;
    }
  }
  return undefined;
}

function isContentBlock(block: unknown): block is ContentBlock {
  if (!isRecord(block)) return false;
  switch (block['type']) {
    case 'text':
      return typeof block['text'] === 'string';
    case 'tool_use':
      return (
        typeof block['id'] === 'string' &&
        typeof block['name'] === 'string' &&
        (block['input'] === undefined || isRecord(block['input']))
      );
    case 'tool_result':
      return (
        typeof block['toolUseId'] === 'string' &&
        typeof block['content'] === 'string' &&
        (block['isError'] === undefined || typeof block['isError'] === 'boolean')
      );
    default:
      return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
