import { codesInText } from './codes-in-text';
import type { ErrorKind } from './error-kind';
import type { HeadersLike } from './parse-retry-after';
import { statusFromText } from './status-from-text';
import { trustedKeelKind } from './trusted-keel-kind';

/** What the wording rules read of one message: its first 8 KB (signals lead, padding trails). */
const MAX_MESSAGE_LENGTH = 8192;
/** What they read of all messages together. */
export const MAX_MESSAGES_LENGTH = 32_768;

/** Facts gathered so far by the walk of one error (`collectErrorFacts`). */
export interface FactsInProgress {
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

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** `value[key]`, or `undefined` when a getter or proxy throws. */
export function readProperty(value: Record<string, unknown>, key: string): unknown {
  try {
    return value[key];
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

export function addUnique(list: string[], value: unknown): void {
  if (typeof value !== 'string') return;
  const trimmed = value.trim();
  if (trimmed && trimmed.length <= 200 && !list.includes(trimmed)) list.push(trimmed);
}

/** Records one message, cut to what the matchers may read, with the status and codes it states. */
export function addMessage(facts: FactsInProgress, message: string, viaBody: boolean): void {
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

function readStatus(node: Record<string, unknown>, facts: FactsInProgress): void {
  const metadata = readProperty(node, '$metadata');
  const candidates = [
    readProperty(node, 'status'),
    readProperty(node, 'statusCode'),
    isObject(metadata) ? readProperty(metadata, 'httpStatusCode') : undefined,
    readProperty(node, 'code'),
  ];
  for (const candidate of candidates) {
    const status = toStatus(candidate);
    if (status !== undefined) {
      facts.structuredStatus ??= status;
      return;
    }
  }
}

function readCodes(node: Record<string, unknown>, facts: FactsInProgress): void {
  for (const key of ['code', 'type', 'status', 'errorCode', 'error_code', 'reason']) {
    const value = readProperty(node, key);
    if (typeof value === 'string' && toStatus(value) === undefined && value !== 'error') {
      addUnique(facts.codes, value);
    }
  }
  const details = readProperty(node, 'details');
  if (Array.isArray(details)) {
    for (const detail of details.slice(0, 8)) {
      if (isObject(detail)) addUnique(facts.codes, readProperty(detail, 'reason'));
    }
  } else if (isObject(details)) {
    addUnique(facts.codes, readProperty(details, 'error_code'));
  }
  const innerError = readProperty(node, 'innererror');
  if (isObject(innerError)) addUnique(facts.codes, readProperty(innerError, 'code'));
}

function readHeaders(node: Record<string, unknown>, facts: FactsInProgress): void {
  if (facts.headers !== undefined) return;
  const headers = readProperty(node, 'headers');
  const response = readProperty(node, '$response');
  if (looksLikeHeaders(headers)) facts.headers = headers;
  else if (isObject(response) && looksLikeHeaders(readProperty(response, 'headers'))) {
    facts.headers = readProperty(response, 'headers') as HeadersLike;
  }
}

/** Reads one object of the walk: kind, status, codes, names, message and headers. */
export function readErrorNode(
  node: Record<string, unknown>,
  facts: FactsInProgress,
  viaBody: boolean,
): void {
  facts.keelKind ??= trustedKeelKind(node);
  readStatus(node, facts);
  readCodes(node, facts);
  addUnique(facts.names, readProperty(node, 'name'));
  addUnique(facts.names, className(node));
  const message = readProperty(node, 'message');
  if (typeof message === 'string' && message) addMessage(facts, message, viaBody);
  readHeaders(node, facts);
}
