import type { ErrorKind } from './error-kind';
import type { HeadersLike } from './parse-retry-after';
import {
  addMessage,
  addUnique,
  type FactsInProgress,
  isObject,
  MAX_MESSAGES_LENGTH,
  readErrorNode,
  readProperty,
} from './read-error-node';

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
const MAX_CHILDREN = 16;
const MAX_JSON_LENGTH = 64_000;
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

interface Visit {
  value: unknown;
  depth: number;
  /** Reached through a provider body (`error`, `body`…) rather than a `cause`. */
  viaBody: boolean;
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

/** A string: a message, and maybe a JSON body inside it. */
function visitString(text: string, visit: Visit, facts: FactsInProgress, queue: Visit[]): void {
  if (!text.trim()) return;
  facts.nodes.push(text);
  addMessage(facts, text, visit.viaBody);
  const parsed = visit.depth < MAX_DEPTH ? parseEmbeddedJson(text) : undefined;
  if (parsed) queue.push({ value: parsed, depth: visit.depth + 1, viaBody: true });
}

/** The causes, bodies and embedded JSON of one object, queued for the walk. */
function queueChildren(node: Record<string, unknown>, visit: Visit, queue: Visit[]): void {
  const depth = visit.depth + 1;
  const message = readProperty(node, 'message');
  const parsed = typeof message === 'string' ? parseEmbeddedJson(message) : undefined;
  if (parsed) queue.push({ value: parsed, depth, viaBody: true });
  for (const key of CHILD_KEYS) {
    const child = readProperty(node, key);
    if (child === undefined || child === null) continue;
    if (key === 'errors' && Array.isArray(child)) {
      for (const item of child.slice(0, MAX_CHILDREN)) {
        queue.push({ value: item, depth, viaBody: visit.viaBody });
      }
    } else if (key === 'cause') {
      queue.push({ value: child, depth, viaBody: false });
    } else if (isObject(child) || (typeof child === 'string' && key !== 'data')) {
      queue.push({ value: child, depth, viaBody: true });
    }
  }
}

function visitValue(visit: Visit, facts: FactsInProgress, queue: Visit[]): void {
  const { value } = visit;
  if (typeof value === 'string') {
    visitString(value, visit, facts, queue);
    return;
  }
  if (!isObject(value)) return;
  if (Array.isArray(value)) {
    // Some OpenAI-compatible endpoints (Gemini's) answer a list of error bodies.
    for (const item of value.slice(0, MAX_CHILDREN)) {
      queue.push({ value: item, depth: visit.depth + 1, viaBody: visit.viaBody });
    }
    return;
  }
  facts.nodes.push(value);
  readErrorNode(value, facts, visit.viaBody);
  if (visit.depth < MAX_DEPTH) queueChildren(value, visit, queue);
}

function finish(facts: FactsInProgress): ErrorFacts {
  const status = facts.structuredStatus ?? facts.textStatus;
  // With an HTTP status, a code in the text describes the provider's side, not our connection.
  if (status === undefined) {
    for (const code of facts.textCodes) addUnique(facts.codes, code);
    for (const name of facts.textNames) addUnique(facts.names, name);
  }
  const primaryMessage = facts.bodyMessage ?? facts.messages[0];
  return {
    nodes: facts.nodes,
    ...(facts.keelKind !== undefined ? { keelKind: facts.keelKind } : {}),
    ...(status !== undefined ? { status } : {}),
    codes: facts.codes,
    names: facts.names,
    messages: facts.messages,
    ...(primaryMessage !== undefined ? { primaryMessage } : {}),
    text: [...facts.messages, ...facts.codes, ...facts.names].join('\n').toLowerCase(),
    ...(facts.headers !== undefined ? { headers: facts.headers } : {}),
  };
}

/**
 * Walks an error breadth-first through `cause`, `errors` (AggregateError), SDK bodies (`error`,
 * `body`, `response`) and JSON embedded in messages. Bounded in depth and size, cycle-safe, and
 * tolerant of throwing getters.
 */
export function collectErrorFacts(error: unknown): ErrorFacts {
  const facts: FactsInProgress = {
    nodes: [],
    codes: [],
    names: [],
    messages: [],
    messageBudget: MAX_MESSAGES_LENGTH,
    textCodes: [],
    textNames: [],
  };
  const seen = new Set<unknown>();
  const queue: Visit[] = [{ value: error, depth: 0, viaBody: false }];
  for (let visit = queue.shift(); visit !== undefined; visit = queue.shift()) {
    if (facts.nodes.length >= MAX_NODES) break;
    if (visit.value === null || visit.value === undefined || seen.has(visit.value)) continue;
    seen.add(visit.value);
    visitValue(visit, facts, queue);
  }
  return finish(facts);
}
