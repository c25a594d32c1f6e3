import { keelError as makeKeelError } from '../keel-error';
import type { ErrorFixture } from './error-fixture';

const NODE_ERRORS_DOC = 'https://nodejs.org/api/errors.html#common-system-errors';
const UNDICI_ERRORS_DOC = 'https://undici.nodejs.org/#/docs/api/Errors';
const CONTRIBUTING = 'CONTRIBUTING.md (the keelKind convention)';
const V8_JSON_PARSE =
  "V8 src/common/message-template.h (JsonParse* messages, Node 20+); seen with both SDKs on the mock provider's truncated-stream for a non-streaming request";

/** A Node system error as `net` / `dns` raise it. */
function systemError(code: string, syscall: string, message: string): Error {
  return Object.assign(new Error(message), { code, errno: -1, syscall });
}

/** An undici error: `name` and `code` as undici sets them. */
function undiciError(name: string, code: string, message: string): Error {
  return Object.assign(new Error(message), { name, code });
}

/** A Keel error carrying a taxonomy kind, as other Keel packages raise them (with a marker). */
function keelError(name: string, keelKind: string, message: string, cause?: unknown): Error {
  return makeKeelError({ name, keelKind, message, ...(cause === undefined ? {} : { cause }) });
}

/** Node, undici, DOM abort/timeout, Keel's own errors and shapes nothing recognises. */
export const TRANSPORT_FIXTURES: readonly ErrorFixture[] = [
  {
    name: 'AbortError while the caller signal is aborted',
    source: 'https://developer.mozilla.org/en-US/docs/Web/API/DOMException#aborterror',
    kind: 'caller_abort',
    callerAborted: true,
    error: new DOMException('This operation was aborted', 'AbortError'),
  },
  {
    name: 'SDK APIUserAbortError shape while the caller signal is aborted',
    source: 'openai-node src/core/error.ts (APIUserAbortError)',
    kind: 'caller_abort',
    callerAborted: true,
    error: Object.assign(new Error('Request was aborted.'), { name: 'APIUserAbortError' }),
  },
  {
    name: 'a 529 that arrives after the caller aborted is still a caller abort',
    source: 'DESIGN.md (caller_abort: never retried, no failover)',
    kind: 'caller_abort',
    callerAborted: true,
    error: Object.assign(new Error('529 Overloaded'), { status: 529 }),
  },
  {
    name: 'DOMException AbortError without a caller abort',
    source: 'OpenClaw PR #97504 (provider-side AbortErrors treated as user cancellation)',
    kind: 'provider_abort',
    error: new DOMException('This operation was aborted', 'AbortError'),
  },
  {
    name: 'Node AbortError (ABORT_ERR) without a caller abort',
    source: NODE_ERRORS_DOC + ' (ABORT_ERR)',
    kind: 'provider_abort',
    code: 'ABORT_ERR',
    error: Object.assign(new Error('The operation was aborted'), {
      name: 'AbortError',
      code: 'ABORT_ERR',
    }),
  },
  {
    name: 'SDK "Request was aborted." without a caller abort',
    source: 'anthropic-sdk-typescript src/core/error.ts (APIUserAbortError)',
    kind: 'provider_abort',
    error: 'Request was aborted.',
  },
  {
    name: 'ECONNRESET',
    source: NODE_ERRORS_DOC,
    kind: 'connection',
    code: 'ECONNRESET',
    error: systemError('ECONNRESET', 'read', 'read ECONNRESET'),
  },
  {
    name: 'fetch failed caused by ECONNREFUSED',
    source: NODE_ERRORS_DOC + ' and ' + UNDICI_ERRORS_DOC,
    kind: 'connection',
    code: 'ECONNREFUSED',
    error: new TypeError('fetch failed', {
      cause: systemError('ECONNREFUSED', 'connect', 'connect ECONNREFUSED 127.0.0.1:9'),
    }),
  },
  {
    name: 'EPIPE',
    source: NODE_ERRORS_DOC,
    kind: 'connection',
    error: systemError('EPIPE', 'write', 'write EPIPE'),
  },
  {
    name: 'getaddrinfo ENOTFOUND',
    source: NODE_ERRORS_DOC,
    kind: 'connection',
    error: systemError('ENOTFOUND', 'getaddrinfo', 'getaddrinfo ENOTFOUND api.anthropic.com'),
  },
  {
    name: 'getaddrinfo EAI_AGAIN',
    source: 'https://nodejs.org/api/dns.html#error-codes',
    kind: 'connection',
    error: systemError('EAI_AGAIN', 'getaddrinfo', 'getaddrinfo EAI_AGAIN api.openai.com'),
  },
  {
    name: 'TypeError terminated with an undici SocketError cause',
    source: UNDICI_ERRORS_DOC + ' (SocketError, UND_ERR_SOCKET)',
    kind: 'connection',
    code: 'UND_ERR_SOCKET',
    error: new TypeError('terminated', {
      cause: undiciError('SocketError', 'UND_ERR_SOCKET', 'other side closed'),
    }),
  },
  {
    name: 'socket hang up (string)',
    source: 'https://nodejs.org/api/http.html (ECONNRESET "socket hang up")',
    kind: 'connection',
    error: 'Error: socket hang up',
  },
  {
    name: 'AggregateError of ECONNREFUSED (happy eyeballs)',
    source:
      'https://nodejs.org/api/net.html#socketconnectoptions-connectlistener (autoSelectFamily)',
    kind: 'connection',
    code: 'ECONNREFUSED',
    error: new TypeError('fetch failed', {
      cause: new AggregateError([
        systemError('ECONNREFUSED', 'connect', 'connect ECONNREFUSED ::1:443'),
        systemError('ECONNREFUSED', 'connect', 'connect ECONNREFUSED 127.0.0.1:443'),
      ]),
    }),
  },
  {
    name: 'SyntaxError: a non-streaming JSON body cut inside a string',
    source: V8_JSON_PARSE,
    kind: 'connection',
    error: new SyntaxError('Unterminated string in JSON at position 174 (line 1 column 175)'),
  },
  {
    name: 'SyntaxError: a JSON body cut after a value',
    source: V8_JSON_PARSE,
    kind: 'connection',
    error: new SyntaxError("Expected ',' or '}' after property value in JSON at position 96"),
  },
  {
    name: 'SyntaxError: an empty or cut JSON body',
    source: V8_JSON_PARSE,
    kind: 'connection',
    error: new SyntaxError('Unexpected end of JSON input'),
  },
  {
    name: 'ETIMEDOUT',
    source: NODE_ERRORS_DOC,
    kind: 'timeout',
    code: 'ETIMEDOUT',
    error: systemError('ETIMEDOUT', 'connect', 'connect ETIMEDOUT 104.18.6.192:443'),
  },
  {
    name: 'undici HeadersTimeoutError',
    source: UNDICI_ERRORS_DOC,
    kind: 'timeout',
    code: 'UND_ERR_HEADERS_TIMEOUT',
    error: new TypeError('fetch failed', {
      cause: undiciError('HeadersTimeoutError', 'UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error'),
    }),
  },
  {
    name: 'undici BodyTimeoutError',
    source: UNDICI_ERRORS_DOC,
    kind: 'timeout',
    code: 'UND_ERR_BODY_TIMEOUT',
    error: new TypeError('terminated', {
      cause: undiciError('BodyTimeoutError', 'UND_ERR_BODY_TIMEOUT', 'Body Timeout Error'),
    }),
  },
  {
    name: 'DOMException TimeoutError (AbortSignal.timeout) while the caller signal is not aborted',
    source: 'https://developer.mozilla.org/en-US/docs/Web/API/AbortSignal/timeout_static',
    kind: 'timeout',
    error: new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
  },
  {
    name: 'SDK "Request timed out." (string)',
    source: 'openai-node src/core/error.ts (APIConnectionTimeoutError)',
    kind: 'timeout',
    error: 'Request timed out.',
  },
  {
    name: 'SessionTakeoverError (keelKind session_takeover)',
    source: CONTRIBUTING,
    kind: 'session_takeover',
    error: Object.assign(
      keelError('SessionTakeoverError', 'session_takeover', 'transcript changed while released'),
      { phase: 'prompt_reacquire' },
    ),
  },
  {
    name: 'session takeover wrapped by a transport error',
    source: CONTRIBUTING,
    kind: 'session_takeover',
    error: new Error('model call failed', {
      cause: keelError('SessionTakeoverError', 'session_takeover', 'fence check failed'),
    }),
  },
  {
    name: 'session takeover inside an AggregateError of a failed turn',
    source: CONTRIBUTING,
    kind: 'session_takeover',
    error: new AggregateError(
      [
        new Error('cleanup failed'),
        keelError('SessionTakeoverError', 'session_takeover', 'transcript rewritten'),
      ],
      'turn failed',
    ),
  },
  {
    name: 'a serialized session takeover (JSON round trip) is not believed',
    source: 'packages/spec/src/error-kind.ts (KindedError: keelKind only with the marker)',
    kind: 'unknown',
    error: JSON.parse(
      '{"name":"SessionTakeoverError","keelKind":"session_takeover","phase":"write"}',
    ),
  },
  {
    name: 'lock acquire timeout is coordination, not timeout',
    source: CONTRIBUTING + ' and DESIGN.md (acquire timeout raises a coordination error)',
    kind: 'coordination',
    error: keelError(
      'SessionLockTimeoutError',
      'coordination',
      'timed out acquiring session lock after 10000 ms',
    ),
  },
  {
    name: 'coordination error wrapping an ECONNRESET-looking cause',
    source: CONTRIBUTING,
    kind: 'coordination',
    error: keelError(
      'SessionLockError',
      'coordination',
      'lock held by another process',
      systemError('ECONNRESET', 'read', 'read ECONNRESET'),
    ),
  },
  {
    name: 'coordination error deep in a cause chain',
    source: CONTRIBUTING,
    kind: 'coordination',
    error: new Error('turn failed', {
      cause: new Error('acquire failed', {
        cause: keelError('LockError', 'coordination', 'conflict'),
      }),
    }),
  },
  {
    name: 'undefined',
    source: 'ECMA-262 throw statement (any value can be thrown; `throw undefined` included)',
    kind: 'unknown',
    error: undefined,
  },
  {
    name: 'empty object',
    source: 'ECMA-262 throw statement (a rejection with an empty, body-less object)',
    kind: 'unknown',
    error: {},
  },
  {
    name: 'plain Error with no known wording',
    source:
      "V8's TypeError for reading a property of undefined (an application bug, not a provider error)",
    kind: 'unknown',
    error: new Error("Cannot read properties of undefined (reading 'content')"),
  },
  {
    name: 'keelKind that is not a kind is ignored',
    source: CONTRIBUTING,
    kind: 'unknown',
    error: keelError('WeirdError', 'not_a_kind', 'something odd'),
  },
];
