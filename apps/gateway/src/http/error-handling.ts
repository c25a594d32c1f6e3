import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { asStorageError, type StorageStatus } from '../compose/storage-status';
import { STORAGE_ERROR_MESSAGE, sendError, storageErrorCode } from './api-error';
import { describeValidation, type ValidationIssue } from './describe-validation';

/**
 * Every error the gateway answers is `{ "error": { "code", "message" } }` with a sentence of its
 * own: never a stack trace, a framework code or a message taken from an exception.
 */
export function registerErrorHandling(app: FastifyInstance, bodyLimitBytes: number): void {
  app.setErrorHandler((thrown: FastifyError, request, reply) => {
    const status = thrown.statusCode ?? 500;
    if (thrown.validation !== undefined) {
      return sendError(
        reply,
        'invalid_request',
        describeValidation(thrown.validationContext, thrown.validation as ValidationIssue[]),
      );
    }
    switch (thrown.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(reply, 'payload_too_large', `The body is over ${bodyLimitBytes} bytes`);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendError(reply, 'unsupported_media_type', 'Send the body as application/json');
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendError(reply, 'invalid_request', 'The body is empty: send a JSON object');
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return sendError(reply, 'invalid_request', 'The body is not valid JSON');
      default:
        break;
    }
    if (status === 413) {
      return sendError(reply, 'payload_too_large', `The body is over ${bodyLimitBytes} bytes`);
    }
    if (status === 415) {
      return sendError(reply, 'unsupported_media_type', 'Send the body as application/json');
    }
    if (status >= 400 && status < 500) {
      return sendError(
        reply,
        'invalid_request',
        thrown instanceof SyntaxError ? 'The body is not valid JSON' : 'The request is not valid',
      );
    }
    const storage = asStorageError(thrown);
    if (storage !== undefined) {
      request.log.error(
        {
          storage: { reason: storage.reason, operation: storage.operation, code: storage.code },
          sessionId: storage.sessionId,
        },
        'request failed in storage',
      );
      return sendError(reply, storageErrorCode(storage.reason), STORAGE_ERROR_MESSAGE);
    }
    request.log.error({ err: { type: thrown.name, code: thrown.code } }, 'request failed');
    return sendError(reply, 'internal', 'Internal error');
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 'not_found', `No route ${request.method} ${pathOf(request.url)}`),
  );
}

/**
 * A turn that ended because its message could not be stored (`errorKind: "storage"`) is answered
 * with the outcome body under `507 Insufficient Storage` when the store is full, else `503`
 * (a read-only directory, a database down or frozen): a client and its retries see a storage
 * failure, not a 200.
 */
export function registerStorageOutcomes(app: FastifyInstance, status: StorageStatus): void {
  app.addHook('preSerialization', async (request, reply, payload: unknown) => {
    if (!isStorageOutcome(payload) || reply.statusCode !== 200) return payload;
    // The failure itself is logged at error level where it happens (`routes-ops`).
    const sessionId = (request.params as { sessionId?: unknown } | undefined)?.sessionId;
    const failure =
      (typeof sessionId === 'string' ? status.failureOf(sessionId) : undefined) ??
      status.lastFailure;
    reply.code(failure?.reason === 'no_space' ? 507 : 503);
    return payload;
  });
}

function isStorageOutcome(payload: unknown): boolean {
  if (typeof payload !== 'object' || payload === null) return false;
  const body = payload as { outcome?: unknown; errorKind?: unknown };
  return body.outcome === 'error' && body.errorKind === 'storage';
}

/**
 * Errors the router raises before any route or hook runs (a bad percent-encoding, a path
 * segment over the router's limit): the contract's `400`, not the framework's own body.
 */
export function frameworkErrors(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  void sendError(
    reply,
    'invalid_request',
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'A path segment is too long (a session id has at most 128 characters)'
      : 'The URL is not valid (check its percent-encoding)',
  );
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a raw control or non-ASCII byte
 * in the URL, a broken request line, oversized headers): the contract's JSON error, then close.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'invalid_request', 'The request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'invalid_request', 'The request took too long to arrive']
        : [400, 'invalid_request', 'The request is not valid HTTP (check the URL and headers)'];
  const body = JSON.stringify({ error: { code, message } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

function pathOf(url: string): string {
  const path = url.split('?')[0] ?? '';
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}
