import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { GatewayRuntime } from '../compose/create-runtime';
import { sendError } from './api-error';
import { createTokenCheck } from './check-token';
import { registerEventRoutes } from './routes-events';
import { registerMessageRoutes } from './routes-messages';
import { registerOpsRoutes } from './routes-ops';
import { registerSessionRoutes } from './routes-sessions';

export interface CreateAppOptions {
  runtime: GatewayRuntime;
  logger: FastifyBaseLogger | false;
  /** Flipped when shutdown starts: new messages get `503`, `/healthz` says `stopping`. */
  state: { stopping: boolean };
  /** More routes (the console). */
  extend?: (app: FastifyInstance) => void | Promise<void>;
}

/**
 * The HTTP API of DESIGN.md ("Gateway HTTP API"): JSON errors without stack traces or provider
 * text, a body limit (413), validated inputs without type coercion (400), an optional bearer
 * token on every route but `/healthz` (401).
 */
export async function createApp(options: CreateAppOptions): Promise<FastifyInstance> {
  const { runtime, state } = options;
  const app = Fastify({
    ...(options.logger === false ? { logger: false } : { loggerInstance: options.logger }),
    bodyLimit: runtime.config.server.bodyLimitBytes,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    disableRequestLogging: false,
    return503OnClosing: true,
  });

  const token = runtime.config.server.authToken;
  if (token !== undefined) {
    const valid = createTokenCheck(token);
    app.addHook('onRequest', async (request, reply) => {
      if (request.url === '/healthz' || request.routeOptions.config.public === true) return;
      if (!valid(request.headers.authorization)) {
        return sendError(reply, 'unauthorized', 'A valid Authorization: Bearer token is required');
      }
    });
  }

  app.addHook('onRequest', async (request, reply) => {
    if (state.stopping && request.method === 'POST') {
      reply.header('retry-after', '5');
      return sendError(
        reply,
        'unavailable',
        'The gateway is restarting. Please send your message again shortly.',
      );
    }
  });

  app.setErrorHandler((thrown, request, reply) => {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    const code = (error as { code?: string }).code;
    if ((error as { validation?: unknown }).validation !== undefined) {
      return sendError(
        reply,
        'invalid_request',
        `Invalid ${String((error as { validationContext?: string }).validationContext ?? 'request')}: ${error.message.replace(/^(body|params|querystring)\/?/, '')}`,
      );
    }
    if (status === 413 || code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(
        reply,
        'payload_too_large',
        `The body is over ${runtime.config.server.bodyLimitBytes} bytes`,
      );
    }
    if (status === 415 || code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendError(reply, 'unsupported_media_type', 'Send the body as application/json');
    }
    if (status >= 400 && status < 500) {
      return sendError(
        reply,
        'invalid_request',
        status === 400 && code === 'FST_ERR_CTP_INVALID_JSON_BODY'
          ? 'The body is not valid JSON'
          : 'The request is not valid',
      );
    }
    request.log.error({ err: { type: error.name, code } }, 'request failed');
    return sendError(reply, 'internal', 'Internal error');
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 'not_found', `No route ${request.method} ${request.url.split('?')[0]}`),
  );

  registerMessageRoutes(app, runtime);
  registerSessionRoutes(app, runtime);
  registerEventRoutes(app, runtime);
  registerOpsRoutes(app, runtime, state);
  await options.extend?.(app);
  return app;
}
