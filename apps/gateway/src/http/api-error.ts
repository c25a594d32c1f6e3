import type { FastifyReply } from 'fastify';

/** The error codes of the gateway's JSON errors. */
export type ApiErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'not_found'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unavailable'
  | 'internal';

const STATUS: Record<ApiErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unavailable: 503,
  internal: 500,
};

/** Sends `{ "error": { "code", "message" } }` with the code's status. Never a stack trace. */
export function sendError(reply: FastifyReply, code: ApiErrorCode, message: string): FastifyReply {
  return reply.code(STATUS[code]).type('application/json').send({ error: { code, message } });
}
