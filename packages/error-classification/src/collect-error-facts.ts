import { codesInText } from './codes-in-text';
import type { ErrorKind } from './error-kind';
import type { HeadersLike } from './parse-retry-after';
import { statusFromText } from './status-from-text';
import { trustedKeelKind } from './trusted-keel-kind';

/** What the classifier read from an error, its `cause` chain and any provider body inside it. */
export interface ErrorFacts {
  /** Every node visited, outermost first: errors, causes, bodies, parsed JSON. */
  readonly nodes: readonly unknown[];
  /**
   * The first valid `keelKind` on an error Keel raised (an `Error` with its own
   * `Symbol.for('keel.error.<Name>')` marker set to `true`); never one from a body or message.
   */
  readonly keelKind?: ErrorKind;
  /** The first HTTP error status, 4xx/5xx (structured fields first, then wording such as `429 …`). */
  readonly status?: number;
  /**
   * Machine codes and body types in the order found: `ECONNRESET`, `overloaded_error`…; then,
   * when there is no HTTP status, Node, undici and gRPC codes stated in message text.
   */
  readonly codes: readonly string[];
  /** Error names and class names: `AbortError`, `APIConnectionTimeoutError`, `ThrottlingException`… */
  readonly names: readonly string[];
  /** Every message text found, each cut to its first 8 KB, 32 KB in all: what wording rules read. */
  readonly messages: readonly string[];
  /** The provider's own message (from an error body) when there is one, else the outer message. */
  readonly primaryMessage?: string;
  /** Lower-cased messages, codes and names joined, for wording rules. */
  readonly text: string;
  /** The first response headers found. */
  readonly headers?: HeadersLike;
}

/** Bounds that keep hostile or cyclic errors cheap. */
const MAX_DEPTH = 8;
const MAX_NODES = 64;
const MAX_JSON_LENGTH = 64_000;
/** What the wording rules read of one message: its first 8 KB (signals lead, padding trails). */
const MAX_MESSAGE_LENGTH = 8192;
/** What they read of all messages together. */
const MAX_MESSAGES_LENGTH = 32_768;
/** Where a cause or a provider body may sit (OpenRouter keeps the upstream error in `metadata.raw`). */
const CHILD_KEYS = [
  'cause',
  'error',
  'errors',
  'body',
  'response',
  'data',
  'originalError',
  'metadata',
  'raw',
];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function readProperty(value: Record<string, unknown>, key: string): unknown {
  try {
    return value[key];
  } catch {
    return undefined;
  }
}

/** Parses a JSON object out of a string such as `529 {"type":"error",…}`; `undefined` if none. */
export function parseEmbeddedJson(text: string): unknown {
  if (text.length > MAX_JSON_LENGTH) return undefined;
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    const parsed: unknown = JSON.parse(text.slice(start, end + 1));
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function toStatus(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  // Only error statuses count: a 200 on a mid-stream error says nothing about the failure.
  return typeof number === 'number' && Number.isInteger(number) && number >= 400 && number <= 599
    ? number
    : undefined;
}

function looksLikeHeaders(value: unknown): value is HeadersLike {
  if (!isObject(value)) return false;
  if (typeof readProperty(value, 'get') === 'function') return true;
  return Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null;
}

/** The name of the class `value` was built by (from its prototype: an own `constructor` key is data). */
function className(value: object): string | undefined {
  try {
    const prototype: unknown = Object.getPrototypeOf(value);
    if (typeof prototype !== 'object' || prototype === null) return undefined;
    const name = (prototype as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name !== 'Object' && name !== 'Error' ? name : undefined;
  } catch {
    return undefined;
  }
}

interface MutableFacts {
  nodes: unknown[];
  keelKind?: ErrorKind;
  structuredStatus?: number;
  textStatus?: number;
  codes: string[];
  names: string[];
  messages: string[];
  /** Characters of message text still allowed in `messages`. */
  messageBudget: number;
  /** Codes and names stated only in message text (they count when there is no HTTP status). */
  textCodes: string[];
  textNames: string[];
  bodyMessage?: string;
  headers?: HeadersLike;
}

function addUnique(list: string[], value: unknown): void {
  if (typeof value !== 'string') return;
  const trimmed = value.trim();
  if (trimmed && trimmed.length <= 200 && !list.includes(trimmed)) list.push(trimmed);
}

/** Records one message, cut to what the matchers may read, and the status its wording names. */
function addMessage(facts: MutableFacts, message: string, viaBody: boolean): void {
  if (facts.messageBudget <= 0) return;
  const text = message.slice(0, Math.min(MAX_MESSAGE_LENGTH, facts.messageBudget));
  if (viaBody) facts.bodyMessage ??= text;
  facts.textStatus ??= statusFromText(text);
  if (facts.messages.includes(text)) return;
  facts.messages.push(text);
  facts.messageBudget -= text.length;
  const stated = codesInText(text);
  for (const code of stated.codes) addUnique(facts.textCodes, code);
  for (const name of stated.names) addUnique(facts.textNames, name);
}

function readNode(node: Record<string, unknown>, facts: MutableFacts, viaBody: boolean): void {
  facts.keelKind ??= trustedKeelKind(node);

  const metadata = readProperty(node, '$metadata');
  const statusCandidates = [
    readProperty(node, 'status'),
    readProperty(node, 'statusCode'),
    isObject(metadata) ? readProperty(metadata, 'httpStatusCode') : undefined,
    readProperty(node, 'code'),
  ];
  for (const candidate of statusCandidates) {
    const status = toStatus(candidate);
    if (status !== undefined) {
      facts.structuredStatus ??= status;
      break;
    }
  }

  for (const key of ['code', 'type', 'status', 'errorCode', 'error_code', 'reason']) {
    const value = readProperty(node, key);
    if (typeof value === 'string' && toStatus(value) === undefined && value !== 'error') {
      addUnique(facts.codes, value);
    }
  }
  const details = readProperty(node, 'details');
  if (isObject(details) && !Array.isArray(details)) {
    addUnique(facts.codes, readProperty(details, 'error_code'));
  }
  if (Array.isArray(details)) {
    for (const detail of details.slice(0, 8)) {
      if (isObject(detail)) addUnique(facts.codes, readProperty(detail, 'reason'));
    }
  }
  const innerError = readProperty(node, 'innererror');
  if (isObject(innerError)) addUnique(facts.codes, readProperty(innerError, 'code'));

  addUnique(facts.names, readProperty(node, 'name'));
  addUnique(facts.names, className(node));

  const message = readProperty(node, 'message');
  if (typeof message === 'string' && message) addMessage(facts, message, viaBody);

  if (facts.headers === undefined) {
    const headers = readProperty(node, 'headers');
    const response = readProperty(node, '$response');
    if (looksLikeHeaders(headers)) facts.headers = headers;
    else if (isObject(response) && looksLikeHeaders(readProperty(response, 'headers'))) {
      facts.headers = readProperty(response, 'headers') as HeadersLike;
    }
  }
}

/**
 * Walks an error breadth-first through `cause`, `errors` (AggregateError), SDK bodies (`error`,
 * `body`, `response`) and JSON embedded in messages. Bounded in depth and size, cycle-safe, and
 * tolerant of throwing getters.
 */
export function collectErrorFacts(error: unknown): ErrorFacts {
  const facts: MutableFacts = {
    nodes: [],
    codes: [],
    names: [],
    messages: [],
    messageBudget: MAX_MESSAGES_LENGTH,
    textCodes: [],
    textNames: [],
  };
  const seen = new Set<unknown>();
  const queue: Array<{ value: unknown; depth: number; viaBody: boolean }> = [
    { value: error, depth: 0, viaBody: false },
  ];
  while (queue.length > 0 && facts.nodes.length < MAX_NODES) {
    const next = queue.shift();
    if (!next) break;
    const { value, depth, viaBody } = next;
    if (value === null || value === undefined || seen.has(value)) continue;
    seen.add(value);
    if (typeof value === 'string') {
      if (!value.trim()) continue;
      facts.nodes.push(value);
      addMessage(facts, value, viaBody);
      const parsed = depth < MAX_DEPTH ? parseEmbeddedJson(value) : undefined;
      if (parsed) queue.push({ value: parsed, depth: depth + 1, viaBody: true });
      continue;
    }
    if (!isObject(value)) continue;
    if (Array.isArray(value)) {
      // Some OpenAI-compatible endpoints (Gemini's) answer a list of error bodies.
      for (const item of value.slice(0, 16)) queue.push({ value: item, depth: depth + 1, viaBody });
      continue;
    }
    facts.nodes.push(value);
    readNode(value, facts, viaBody);
    if (depth >= MAX_DEPTH) continue;
    const message = readProperty(value, 'message');
    if (typeof message === 'string') {
      const parsed = parseEmbeddedJson(message);
      if (parsed) queue.push({ value: parsed, depth: depth + 1, viaBody: true });
    }
    for (const key of CHILD_KEYS) {
      const child = readProperty(value, key);
      if (child === undefined || child === null) continue;
      if (key === 'errors' && Array.isArray(child)) {
        for (const item of child.slice(0, 16))
          queue.push({ value: item, depth: depth + 1, viaBody });
      } else if (key === 'cause') {
        queue.push({ value: child, depth: depth + 1, viaBody: false });
      } else if (isObject(child) || (typeof child === 'string' && key !== 'data')) {
        queue.push({ value: child, depth: depth + 1, viaBody: true });
      }
    }
  }
  const status = facts.structuredStatus ?? facts.textStatus;
  // With an HTTP status, a code in the text describes the provider's side, not our connection.
  if (status === undefined) {
    for (const code of facts.textCodes) addUnique(facts.codes, code);
    for (const name of facts.textNames) addUnique(facts.names, name);
  }
  const text = [...facts.messages, ...facts.codes, ...facts.names].join('\n').toLowerCase();
  return {
    nodes: facts.nodes,
    ...(facts.keelKind !== undefined ? { keelKind: facts.keelKind } : {}),
    ...(status !== undefined ? { status } : {}),
    codes: facts.codes,
    names: facts.names,
    messages: facts.messages,
    ...(facts.bodyMessage !== undefined || facts.messages[0] !== undefined
      ? { primaryMessage: facts.bodyMessage ?? facts.messages[0] }
      : {}),
    text,
    ...(facts.headers !== undefined ? { headers: facts.headers } : {}),
  };
}
