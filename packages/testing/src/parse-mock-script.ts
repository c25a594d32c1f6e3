import type { MockBehavior, MockScriptEntry } from './mock-provider-types';

/** Thrown for a script file that does not describe a valid behaviour queue. */
export class MockScriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MockScriptError';
  }
}

type Json = Record<string, unknown>;

const behaviorTypes = new Set<string>([
  'ok',
  'http-error',
  'reset-before-headers',
  'reset-after-chunks',
  'stream-error',
  'truncated-stream',
  'hang',
  'stall',
]);

const apis = new Set<string>(['openai-chat', 'openai-responses', 'anthropic-messages']);

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function requireNumber(value: Json, key: string, where: string, optional: boolean): void {
  const field = value[key];
  if (field === undefined && optional) return;
  if (typeof field !== 'number' || !Number.isFinite(field) || field < 0) {
    throw new MockScriptError(`${where}: "${key}" must be a non-negative number`);
  }
}

function checkBehavior(value: unknown, where: string): MockBehavior {
  if (!isObject(value) || typeof value['type'] !== 'string') {
    throw new MockScriptError(`${where}: expected a behaviour object with a "type"`);
  }
  const type = value['type'];
  if (!behaviorTypes.has(type)) {
    throw new MockScriptError(
      `${where}: unknown behaviour type "${type}" (one of ${[...behaviorTypes].join(', ')})`,
    );
  }
  if (type === 'http-error') requireNumber(value, 'status', where, false);
  if (type === 'reset-after-chunks') requireNumber(value, 'chunks', where, false);
  if (type === 'truncated-stream') requireNumber(value, 'chunks', where, true);
  if (type === 'stream-error' || type === 'stall') requireNumber(value, 'afterChunks', where, true);
  if (type === 'ok') {
    requireNumber(value, 'chunkDelayMs', where, true);
    requireNumber(value, 'chunkSize', where, true);
    requireNumber(value, 'firstChunkDelayMs', where, true);
    requireNumber(value, 'malformedAfterChunks', where, true);
    const omit = value['omitTerminalEvent'];
    if (omit !== undefined && typeof omit !== 'boolean') {
      throw new MockScriptError(`${where}: "omitTerminalEvent" must be a boolean`);
    }
    const calls = value['toolCalls'];
    if (calls !== undefined) {
      const valid =
        Array.isArray(calls) &&
        calls.every(
          (call) => isObject(call) && typeof call['name'] === 'string' && isObject(call['input']),
        );
      if (!valid) {
        throw new MockScriptError(`${where}: "toolCalls" must be an array of { name, input }`);
      }
    }
  }
  return value as unknown as MockBehavior;
}

function checkModel(value: unknown, where: string): string | RegExp {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value['regex'] === 'string') {
    const flags = typeof value['flags'] === 'string' ? value['flags'] : '';
    try {
      return new RegExp(value['regex'], flags);
    } catch (error) {
      throw new MockScriptError(`${where}: invalid regex: ${(error as Error).message}`);
    }
  }
  throw new MockScriptError(`${where}: "match.model" must be a string or { "regex": "..." }`);
}

function checkEntry(value: unknown, where: string): MockScriptEntry | MockBehavior {
  if (!isObject(value)) throw new MockScriptError(`${where}: expected an object`);
  if (!('behavior' in value)) return checkBehavior(value, where);
  const entry: MockScriptEntry = {
    behavior: checkBehavior(value['behavior'], `${where}.behavior`),
  };
  if (value['times'] !== undefined) {
    const times = value['times'];
    if (typeof times !== 'number' || !(times > 0)) {
      throw new MockScriptError(`${where}: "times" must be a positive number`);
    }
    entry.times = times;
  }
  if (value['forMs'] !== undefined) {
    requireNumber(value, 'forMs', where, false);
    entry.forMs = value['forMs'] as number;
  }
  const match = value['match'];
  if (match !== undefined) {
    if (!isObject(match)) throw new MockScriptError(`${where}: "match" must be an object`);
    entry.match = {};
    if (match['api'] !== undefined) {
      if (typeof match['api'] !== 'string' || !apis.has(match['api'])) {
        throw new MockScriptError(`${where}: "match.api" must be one of ${[...apis].join(', ')}`);
      }
      entry.match.api = match['api'] as NonNullable<MockScriptEntry['match']>['api'];
    }
    if (match['model'] !== undefined) entry.match.model = checkModel(match['model'], where);
    if (match['apiKey'] !== undefined) {
      if (typeof match['apiKey'] !== 'string') {
        throw new MockScriptError(`${where}: "match.apiKey" must be a string`);
      }
      entry.match.apiKey = match['apiKey'];
    }
    if (match['prefill'] !== undefined) {
      if (typeof match['prefill'] !== 'boolean') {
        throw new MockScriptError(`${where}: "match.prefill" must be a boolean`);
      }
      entry.match.prefill = match['prefill'];
    }
  }
  return entry;
}

/**
 * Parse a mock script (JSON text): an array of `MockScriptEntry | MockBehavior`, where
 * `match.model` is a string or `{ "regex": "...", "flags"?: "..." }`.
 */
export function parseMockScript(text: string): Array<MockScriptEntry | MockBehavior> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new MockScriptError(`script is not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) {
    throw new MockScriptError('script must be a JSON array of behaviours or script entries');
  }
  return parsed.map((value, index) => checkEntry(value, `script[${index}]`));
}
