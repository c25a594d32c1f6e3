import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { registerCompatRoutes } from '../compat/register-compat-routes';
import type { GatewayRuntime } from '../compose/create-runtime';
import { authenticateWith } from '../keys/authenticate-with';
import { createKeyring } from '../keys/create-keyring';
import { registerKeys } from '../keys/register-keys';
import { closeIncompleteRequestsAfter } from './close-incomplete-requests';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './error-handling';
import { registerGuardHooks } from './guard-hooks';
import { lazyChildLoggerFactory } from './lazy-child-logger';
import { RequestLogController } from './request-log-controller';
import { registerEventRoutes } from './routes-events';
import { registerMessageRoutes } from './routes-messages';
import { registerOpsRoutes } from './routes-ops';
import { registerSessionRoutes } from './routes-sessions';
import { createSessionWatchers } from './session-watchers';
import type { SseStream } from './sse';

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
 * text, a body limit (413), JSON bodies only (415), validated inputs without type coercion (400),
 * an optional bearer token on every route but `/healthz` (401), loopback `Host` names only without
 * one (421), no state-changing request from another origin (403), request and header timeouts
 * (408).
 */
export async function createApp(options: CreateAppOptions): Promise<FastifyInstance> {
  const { runtime, state } = options;
  const { server } = runtime.config;
  const app = Fastify({
    ...(options.logger === false
      ? { logger: false }
      : { loggerInstance: options.logger, childLoggerFactory: lazyChildLoggerFactory }),
    // `incoming request` and `request completed` at debug, not info.
    logController: new RequestLogController(),
    bodyLimit: server.bodyLimitBytes,
    // A client sending its request slowly (or never finishing it) gets a 408, not a socket held
    // forever; checked every second at most so the timeouts hold to about a second.
    requestTimeout: server.requestTimeoutMs,
    http: {
      requestTimeout: server.requestTimeoutMs,
      headersTimeout: server.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(
        100,
        Math.min(1_000, Math.floor(server.headersTimeoutMs / 4)),
      ),
    },
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    // Shutdown answers through the guard hooks (the contract's JSON error), not Fastify's own 503.
    return503OnClosing: false,
    // Ids up to 128 characters reach validation (400 with a reason); longer segments are
    // refused by the router, also with the contract's 400 (`frameworkErrors`).
    routerOptions: { maxParamLength: 1024 },
    frameworkErrors,
    clientErrorHandler,
  });
  // Only JSON bodies: a text/plain body is a 415, not a string that fails validation.
  app.removeContentTypeParser('text/plain');

  // Client keys (and `server.authToken`): who may call, which sessions and models are theirs.
  const keyring = await createKeyring({
    config: runtime.config,
    prices: runtime.prices,
    registry: runtime.metrics.registry,
    onSaveError: (error) =>
      app.log.error({ err: { code: (error as { code?: string }).code } }, 'key spend not saved'),
  });
  registerGuardHooks(app, {
    authToken: server.authToken,
    state,
    authenticate: runtime.config.keys.length === 0 ? undefined : authenticateWith(keyring),
  });
  registerKeys(app, runtime, keyring);
  registerErrorHandling(app, server.bodyLimitBytes);
  closeIncompleteRequestsAfter(app, runtime.config.shutdown.graceMs);

  // Followers of the event log never end on their own: end them so the server can close.
  const followers = new Set<SseStream>();
  app.addHook('preClose', async () => {
    for (const stream of followers) stream.end();
  });

  // Who follows which session live: a JSON turn in a session nobody follows flushes once.
  const watchers = createSessionWatchers();
  registerMessageRoutes(app, runtime, watchers);
  registerSessionRoutes(app, runtime);
  registerEventRoutes(app, runtime, followers, watchers);
  registerOpsRoutes(app, runtime, state);
  registerCompatRoutes(app, runtime);
  await options.extend?.(app);
  return app;
}
