import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayRuntime } from '../compose/create-runtime';
import { sendError } from './api-error';
import {
  type ConsoleAsset,
  type ConsoleAssets,
  defaultConsoleAssetsDir,
  loadConsoleAssets,
} from './console-assets';
import { PUBLIC_ROUTE } from './public-route';

export interface ConsoleRoutesOptions {
  /** The built console; default `dist/console` of this package. */
  assetsDir?: string;
}

/** Nothing runs but the console's own script; it talks only to this gateway. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * `GET /console` (and its files under `/console/…`): the operator console, unless
 * `server.console` is `false`. The page and its files hold no data and load without the token;
 * the console then reads the API with the bearer token the operator enters.
 */
export async function registerConsoleRoutes(
  app: FastifyInstance,
  runtime: GatewayRuntime,
  options: ConsoleRoutesOptions = {},
): Promise<void> {
  if (!runtime.config.server.console) return;
  const assets = await loadConsoleAssets(options.assetsDir ?? defaultConsoleAssetsDir(), {
    authRequired: runtime.config.server.authToken !== undefined || runtime.config.keys.length > 0,
  });
  const routeOptions = { config: PUBLIC_ROUTE };

  app.get('/console', routeOptions, async (request, reply) =>
    assets === undefined ? notBuilt(reply) : sendAsset(request, reply, assets.shell),
  );
  app.get('/console/', routeOptions, async (_request, reply) => reply.redirect('/console', 308));
  app.get<{ Params: { file: string } }>(
    '/console/:file',
    {
      ...routeOptions,
      schema: {
        params: {
          type: 'object',
          required: ['file'],
          properties: { file: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' } },
        },
      },
    },
    async (request, reply) => {
      if (assets === undefined) return notBuilt(reply);
      const asset = (assets as ConsoleAssets).get(request.params.file);
      if (asset === undefined)
        return sendError(reply, 'not_found', `No console file ${request.params.file}`);
      return sendAsset(request, reply, asset);
    },
  );
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: ConsoleAsset) {
  reply.headers({
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
    etag: asset.etag,
  });
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  return reply.type(asset.contentType).send(asset.body);
}

function notBuilt(reply: FastifyReply) {
  return sendError(
    reply,
    'unavailable',
    'The console was not built: run `pnpm turbo run build --filter=@keel/gateway...`',
  );
}
