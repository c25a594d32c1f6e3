import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refuse } from './host-guard';

/** Methods that change state. */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Whether a request comes from a page on another origin, by what every current browser sends
 * and no page can forge: `Sec-Fetch-Site` other than `same-origin` / `none` (a typed URL,
 * a bookmark), or an `Origin` (`null` included) that is not this request's own `Host`.
 * Clients that are not browsers (curl, the SDKs) send neither and are not cross-origin.
 */
export function isCrossOrigin(request: Pick<FastifyRequest, 'headers'>): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  const host = request.headers.host;
  if (host === undefined) return true;
  try {
    return new URL(origin).host !== new URL(`http://${host}`).host;
  } catch {
    return true;
  }
}

/**
 * CSRF guard: a page on another origin can send a `POST` without a body or with a simple
 * content type (`fetch(url, { method: 'POST', mode: 'no-cors' })`), which needs no preflight;
 * such a request must change nothing (no message, compaction or model switch), so every
 * state-changing request from another origin is refused (`403`), token or not.
 */
export function registerOriginGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!WRITES.has(request.method) || !isCrossOrigin(request)) return;
    return refuse(
      reply,
      403,
      'cross_origin_refused',
      'Requests that change state are not accepted from pages on another origin',
    );
  });
}
