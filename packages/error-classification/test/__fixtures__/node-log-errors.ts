import type { ErrorFixture } from './error-fixture';

const NODE_ERRORS_DOC = 'https://nodejs.org/api/errors.html#common-system-errors';
const DNS_DOC = 'https://nodejs.org/api/dns.html#error-codes';
const UNDICI_ERRORS_DOC = 'https://undici.nodejs.org/#/docs/api/Errors';
const INSPECT = 'as util.inspect / console.error prints it';

/**
 * Node system errors and undici errors as they appear in logs: plain strings, no status, no
 * `code` property — only the text. `String(error)`, `console.error(error)` (util.inspect, with
 * the `[cause]` and the `code: '…'` line), and application log lines that paste the message.
 */
export const NODE_LOG_FIXTURES: readonly ErrorFixture[] = [
  {
    name: 'log: Error: read ECONNRESET',
    source: NODE_ERRORS_DOC + ' (ECONNRESET, "read ECONNRESET")',
    kind: 'connection',
    code: 'ECONNRESET',
    error: 'Error: read ECONNRESET',
  },
  {
    name: 'log: connect ECONNREFUSED to a local Ollama',
    source:
      NODE_ERRORS_DOC + ' (ECONNREFUSED; net message "connect ECONNREFUSED <address>:<port>")',
    kind: 'connection',
    code: 'ECONNREFUSED',
    error: 'Error: connect ECONNREFUSED 127.0.0.1:11434',
  },
  {
    name: 'log: getaddrinfo ENOTFOUND, inspected with its properties',
    source: `${DNS_DOC} (ENOTFOUND), ${INSPECT}`,
    kind: 'connection',
    code: 'ENOTFOUND',
    error: [
      'Error: getaddrinfo ENOTFOUND api.openai.com',
      '    at GetAddrInfoReqWrap.onlookupall [as oncomplete] (node:dns:120:26) {',
      '  errno: -3008,',
      "  code: 'ENOTFOUND',",
      "  syscall: 'getaddrinfo',",
      "  hostname: 'api.openai.com'",
      '}',
    ].join('\n'),
  },
  {
    name: 'log: fetch failed with a getaddrinfo EAI_AGAIN cause',
    source: `${DNS_DOC} (EAI_AGAIN, a temporary DNS failure), ${INSPECT}`,
    kind: 'connection',
    code: 'EAI_AGAIN',
    error: [
      'TypeError: fetch failed',
      '    at node:internal/deps/undici/undici:13510:13',
      '    at process.processTicksAndRejections (node:internal/process/task_queues:105:5) {',
      '  [cause]: Error: getaddrinfo EAI_AGAIN api.anthropic.com',
      '      at GetAddrInfoReqWrap.onlookupall [as oncomplete] (node:dns:120:26) {',
      '    errno: -3001,',
      "    code: 'EAI_AGAIN',",
      "    syscall: 'getaddrinfo',",
      "    hostname: 'api.anthropic.com'",
      '  }',
      '}',
    ].join('\n'),
  },
  {
    name: 'log: connect EHOSTUNREACH',
    source: NODE_ERRORS_DOC + ' (EHOSTUNREACH: no route to the host)',
    kind: 'connection',
    code: 'EHOSTUNREACH',
    error: 'Error: connect EHOSTUNREACH 10.20.0.7:443',
  },
  {
    name: 'log: connect ENETUNREACH over IPv6',
    source: NODE_ERRORS_DOC + ' (ENETUNREACH)',
    kind: 'connection',
    code: 'ENETUNREACH',
    error: 'Error: connect ENETUNREACH 2606:4700::6810:7b5d:443 - Local (:::0)',
  },
  {
    name: 'log: write EPIPE',
    source: NODE_ERRORS_DOC + ' (EPIPE)',
    kind: 'connection',
    code: 'EPIPE',
    error: 'Error: write EPIPE',
  },
  {
    name: 'log: TLS socket disconnected before the handshake',
    source:
      'Node lib/_tls_wrap.js (ECONNRESET "Client network socket disconnected before secure TLS connection was established")',
    kind: 'connection',
    error: 'Error: Client network socket disconnected before secure TLS connection was established',
  },
  {
    name: 'log: happy-eyeballs AggregateError [ECONNREFUSED] under fetch failed',
    source: `https://nodejs.org/api/net.html#socketconnectoptions-connectlistener (autoSelectFamily), ${INSPECT}`,
    kind: 'connection',
    code: 'ECONNREFUSED',
    error: [
      'TypeError: fetch failed',
      '    at node:internal/deps/undici/undici:13510:13 {',
      '  [cause]: AggregateError [ECONNREFUSED]: ',
      '      at internalConnectMultiple (node:net:1122:18)',
      '      at afterConnectMultiple (node:net:1689:7) {',
      "    code: 'ECONNREFUSED',",
      '    [errors]: [ [Error], [Error] ]',
      '  }',
      '}',
    ].join('\n'),
  },
  {
    name: 'log: terminated with an undici SocketError cause',
    source: `${UNDICI_ERRORS_DOC} (SocketError, UND_ERR_SOCKET), ${INSPECT}`,
    kind: 'connection',
    code: 'UND_ERR_SOCKET',
    error: [
      'TypeError: terminated',
      '    at Fetch.onAborted (node:internal/deps/undici/undici:11190:53) {',
      '  [cause]: SocketError: other side closed',
      '      at TLSSocket.onSocketEnd (node:internal/deps/undici/undici:8903:26) {',
      "    code: 'UND_ERR_SOCKET',",
      '    socket: { localAddress: undefined, remoteAddress: undefined }',
      '  }',
      '}',
    ].join('\n'),
  },
  {
    name: 'log: stream premature close',
    source: 'https://nodejs.org/api/errors.html#err_stream_premature_close',
    kind: 'connection',
    code: 'ERR_STREAM_PREMATURE_CLOSE',
    error: 'Error [ERR_STREAM_PREMATURE_CLOSE]: Premature close',
  },
  {
    name: 'log: connect ETIMEDOUT',
    source: NODE_ERRORS_DOC + ' (ETIMEDOUT)',
    kind: 'timeout',
    code: 'ETIMEDOUT',
    error: 'Error: connect ETIMEDOUT 104.18.6.192:443',
  },
  {
    name: 'log: undici ConnectTimeoutError under fetch failed',
    source: `${UNDICI_ERRORS_DOC} (ConnectTimeoutError, UND_ERR_CONNECT_TIMEOUT), ${INSPECT}`,
    kind: 'timeout',
    code: 'UND_ERR_CONNECT_TIMEOUT',
    error: [
      'TypeError: fetch failed',
      '    at node:internal/deps/undici/undici:13502:13',
      '  [cause]: ConnectTimeoutError: Connect Timeout Error (attempted address: api.openai.com:443, timeout: 10000ms)',
      "    code: 'UND_ERR_CONNECT_TIMEOUT'",
    ].join('\n'),
  },
  {
    name: 'log: an application line naming UND_ERR_CONNECT_TIMEOUT',
    source: 'public agent logs: "fetch failed (UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error …)"',
    kind: 'timeout',
    code: 'UND_ERR_CONNECT_TIMEOUT',
    error:
      'Child model stopped with error: fetch failed (UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error (attempted address: chatgpt.com:443, timeout: 10000ms))',
  },
  {
    name: 'log: undici HeadersTimeoutError',
    source: `${UNDICI_ERRORS_DOC} (HeadersTimeoutError, UND_ERR_HEADERS_TIMEOUT), ${INSPECT}`,
    kind: 'timeout',
    code: 'UND_ERR_HEADERS_TIMEOUT',
    error: [
      'TypeError: fetch failed',
      '  [cause]: HeadersTimeoutError: Headers Timeout Error',
      "    code: 'UND_ERR_HEADERS_TIMEOUT'",
    ].join('\n'),
  },
  {
    name: 'log: undici BodyTimeoutError, name and message only',
    source: UNDICI_ERRORS_DOC + ' (BodyTimeoutError)',
    kind: 'timeout',
    error: 'BodyTimeoutError: Body Timeout Error',
  },
];
