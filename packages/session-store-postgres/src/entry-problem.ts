import type { ErrorKind, Role, TranscriptEntry, TurnOutcomeKind } from '@keel/spec';

type Value = Record<string, unknown>;

const roles = new Set<string>(['user', 'assistant', 'tool'] satisfies Role[]);
const outcomes = new Set<string>([
  'reply',
  'resend',
  'error',
  'aborted',
] satisfies TurnOutcomeKind[]);
/** A `Record` so that a kind added to the spec fails to compile here until it is listed. */
const errorKinds = new Set<string>(
  Object.keys({
    caller_abort: 0,
    provider_abort: 0,
    connection: 0,
    timeout: 0,
    rate_limit: 0,
    overloaded: 0,
    server_error: 0,
    auth: 0,
    billing: 0,
    context_overflow: 0,
    invalid_request: 0,
    model_not_found: 0,
    content_policy: 0,
    session_takeover: 0,
    coordination: 0,
    storage: 0,
    unknown: 0,
  } satisfies Record<ErrorKind, 0>),
);

export function isRecord(value: unknown): value is Value {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What is wrong with `value` as a current-format transcript entry, or `undefined` when nothing
 * is: each type's required fields, and the type of every optional field that is present. Extra
 * fields are allowed (and kept).
 */
export function entryProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'entry is not a JSON object';
  if (typeof value['id'] !== 'string' || typeof value['timestamp'] !== 'string') {
    return 'entry lacks a string id or timestamp';
  }
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

/** The entry as stored: a message without `messageId` gets its `id` (as the file store does). */
export function normalizedEntry(entry: TranscriptEntry): unknown {
  const value: unknown = entry;
  if (isRecord(value) && value['type'] === 'message' && value['messageId'] === undefined) {
    return { ...value, messageId: value['id'] };
  }
  return value;
}

/** Absent, or token counts: numbers, the cache ones optional. */
function isUsage(usage: unknown): boolean {
  if (usage === undefined) return true;
  if (!isRecord(usage)) return false;
  const counts = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'];
  return counts.every(
    (key, index) => (index >= 2 && usage[key] === undefined) || isNumber(usage[key]),
  );
}

function messageProblem(value: Value): string | undefined {
  if (typeof value['messageId'] !== 'string') return 'message lacks a string messageId';
  if (typeof value['role'] !== 'string' || !roles.has(value['role'])) {
    return 'message role is not user, assistant or tool';
  }
  const content = value['content'];
  if (!Array.isArray(content)) return 'message content is not an array';
  const bad = content.findIndex((block) => blockProblem(block) !== undefined);
  if (bad !== -1) return `message content block ${bad}: ${blockProblem(content[bad])}`;
  if (!isUsage(value['usage'])) return 'message usage is not { inputTokens, outputTokens }';
  return stringsProblem(value, ['clientMessageId', 'turnId', 'model', 'provider']);
}

function blockProblem(block: unknown): string | undefined {
  if (!isRecord(block)) return 'not an object';
  switch (block['type']) {
    case 'text':
      return typeof block['text'] === 'string' ? undefined : 'text block without text';
    case 'tool_use':
      return typeof block['id'] === 'string' &&
        typeof block['name'] === 'string' &&
        (block['input'] === undefined || isRecord(block['input']))
        ? undefined
        : 'tool_use block needs a string id and name and an object input';
    case 'tool_result':
      return typeof block['toolUseId'] === 'string' &&
        typeof block['content'] === 'string' &&
        (block['isError'] === undefined || typeof block['isError'] === 'boolean')
        ? undefined
        : 'tool_result block needs a string toolUseId and content';
    default:
      return `unknown block type ${JSON.stringify(block['type'])}`;
  }
}

function compactionProblem(value: Value): string | undefined {
  const provenance = value['provenance'];
  if (typeof value['summary'] !== 'string') return 'compaction lacks a summary';
  const firstKept = value['firstKeptEntryId'];
  if (firstKept !== null && typeof firstKept !== 'string') {
    return 'compaction firstKeptEntryId is not a string or null';
  }
  if (
    !isRecord(provenance) ||
    typeof provenance['producerId'] !== 'string' ||
    typeof provenance['sourceDigest'] !== 'string' ||
    !isNumber(provenance['attempts']) ||
    !isNumber(provenance['tokensBefore']) ||
    !isNumber(provenance['tokensAfter'])
  ) {
    return 'compaction provenance needs producerId, attempts, tokensBefore, tokensAfter and sourceDigest';
  }
  return undefined;
}

function turnProblem(value: Value): string | undefined {
  if (typeof value['turnId'] !== 'string') return 'turn entry lacks a turnId';
  if (value['phase'] !== 'start' && value['phase'] !== 'end')
    return 'turn phase is not start or end';
  const { outcome, errorKind, retryAfterMs, steeredMessageIds } = value;
  if (outcome !== undefined && !(typeof outcome === 'string' && outcomes.has(outcome))) {
    return `turn outcome ${JSON.stringify(outcome)} is not reply, resend, error or aborted`;
  }
  if (errorKind !== undefined && !(typeof errorKind === 'string' && errorKinds.has(errorKind))) {
    return `turn errorKind ${JSON.stringify(errorKind)} is not an error kind`;
  }
  if (retryAfterMs !== undefined && !(isNumber(retryAfterMs) && retryAfterMs >= 0)) {
    return 'turn retryAfterMs is not a non-negative number';
  }
  if (!isUsage(value['usage'])) return 'turn usage is not { inputTokens, outputTokens }';
  if (
    steeredMessageIds !== undefined &&
    !(Array.isArray(steeredMessageIds) && steeredMessageIds.every((id) => typeof id === 'string'))
  ) {
    return 'turn steeredMessageIds is not an array of strings';
  }
  return stringsProblem(value, ['messageId', 'clientMessageId', 'text', 'model', 'provider']);
}

function modelSelectionProblem(value: Value): string | undefined {
  if (typeof value['model'] !== 'string' || value['model'] === '') {
    return 'model-selection lacks a model';
  }
  if (value['source'] !== 'user' && value['source'] !== 'healed') {
    return 'model-selection source is not user or healed';
  }
  return stringsProblem(value, ['turnId']);
}

function stringsProblem(value: Value, keys: readonly string[]): string | undefined {
  const bad = keys.find((key) => value[key] !== undefined && typeof value[key] !== 'string');
  return bad === undefined ? undefined : `${String(value['type'])} ${bad} is not a string`;
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
