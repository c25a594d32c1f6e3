import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendError } from './api-error';
import { createTokenCheck } from './check-token';
import { registerHostGuard } from './host-guard';
import { registerOriginGuard } from './origin-guard';

/** Routes open without the bearer token. */
const PUBLIC_PATHS = new Set(['/healthz']);
/** Methods that change state: refused once shutdown starts. */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The hooks every request passes first: without a token, a `Host` that is not loopback (`421`,
 * DNS rebinding); a state-changing request from another origin (`403`, CSRF); the optional
 * bearer token (`401`); and during shutdown
 * a `503` for writes, `Connection: close` on every answer, and no keep-alive socket left open
 * once its answer is complete (so the server can close while clients still hold connections).
 */
export function registerGuardHooks(
  app: FastifyInstance,
  options: {
    authToken: string | undefined;
    state: { stopping: boolean };
    /**
     * Who a request's credential belongs to (`server.authToken` or a client key), remembered for
     * the routes; `false` when it is none. Replaces the single `authToken` check.
     */
    authenticate?: ((request: FastifyRequest) => boolean) | undefined;
  },
): void {
  const { state } = options;

  app.addHook('onRequest', async (_request, reply) => {
    reply.raw.once('finish', () => {
      if (state.stopping) setImmediate(() => app.server.closeIdleConnections());
    });
  });

  const tokenCheck =
    options.authToken === undefined ? undefined : createTokenCheck(options.authToken);
  const authenticate =
    options.authenticate ??
    (tokenCheck === undefined
      ? undefined
      : (request: FastifyRequest) =>
          tokenCheck(request.headers.authorization, request.headers['x-api-key']));
  if (authenticate === undefined) registerHostGuard(app);
  registerOriginGuard(app);

  if (authenticate !== undefined) {
    app.addHook('onRequest', async (request, reply) => {
      if (PUBLIC_PATHS.has(request.url.split('?')[0] ?? '')) return;
      // Routes marked public (the console's page and assets: no data) load without the token.
      if (request.routeOptions.config?.public === true) return;
      if (!authenticate(request)) {
        return sendError(
          reply,
          'unauthorized',
          'A valid Authorization: Bearer token (or x-api-key) is required',
        );
      }
    });
  }

  app.addHook('onRequest', async (request, reply) => {
    if (state.stopping && WRITES.has(request.method)) {
      reply.header('retry-after', '5');
      return sendError(
        reply,
        'unavailable',
        'The gateway is restarting. Please send your message again shortly.',
      );
    }
  });

  app.addHook('onSend', async (_request, reply) => {
    if (state.stopping) reply.header('connection', 'close');
  });
}
