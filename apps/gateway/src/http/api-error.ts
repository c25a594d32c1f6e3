import type { FastifyReply } from 'fastify';

/** The error codes of the gateway's JSON errors. */
export type ApiErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'budget_exceeded'
  | 'not_found'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unavailable'
  | 'insufficient_storage'
  | 'storage_unavailable'
  | 'internal';

export const API_ERROR_STATUS: Record<ApiErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  /** A client key that may not use this route or model. */
  forbidden: 403,
  /** A client key that reached its spend cap for the day or month. */
  budget_exceeded: 403,
  not_found: 404,
  /** A client key over its `rpm` or `tpm` (with `Retry-After`). */
  rate_limited: 429,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unavailable: 503,
  /** The store is full (a disk or quota, or the database's disk): nothing could be stored. */
  insufficient_storage: 507,
  /** The store failed otherwise: read-only, unreachable, frozen, out of descriptors. */
  storage_unavailable: 503,
  internal: 500,
};

/**
 * Renders an error in a client's own wire format (the compatible endpoints set one per route, as
 * `config.wireError`), so that every error of such a route — a missing token, a bad body, a body
 * too large, shutdown — reaches the client's SDK in the shape it parses.
 */
export type WireErrorRenderer = (
  reply: FastifyReply,
  error: { code: ApiErrorCode; status: number; message: string },
) => FastifyReply;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's clients speak another wire: its errors are rendered by this. */
    wireError?: WireErrorRenderer;
  }
}

/**
 * Sends `{ "error": { "code", "message" } }` with the code's status, or the route's wire shape.
 * Never a stack trace.
 */
export function sendError(reply: FastifyReply, code: ApiErrorCode, message: string): FastifyReply {
  const status = API_ERROR_STATUS[code];
  const wire = reply.request?.routeOptions?.config?.wireError;
  if (wire !== undefined) return wire(reply, { code, status, message });
  return reply.code(status).type('application/json').send({ error: { code, message } });
}

/** The JSON error code for a storage failure of `reason`: `507` for a full store, else `503`. */
export function storageErrorCode(reason: string | undefined): ApiErrorCode {
  return reason === 'no_space' ? 'insufficient_storage' : 'storage_unavailable';
}

/** What a client is told when its request could not be stored (never the system error). */
export const STORAGE_ERROR_MESSAGE =
  'The message could not be stored (the storage is full or unavailable); please try again later.';
