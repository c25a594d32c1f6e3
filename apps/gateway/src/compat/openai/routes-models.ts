// `GET /v1/models`: what an OpenAI client may send as `model` (the routes, then every configured
// `providerId/model`), in OpenAI's list shape, so model pickers and health checks work.
import type { FastifyInstance } from 'fastify';
import { mayName } from '../../keys/client-of';
import type { CompatContext } from '../compat-context';
import { routeNames } from '../resolve-route';
import { renderOpenAIError } from './openai-error';

export function registerModelsRoute(app: FastifyInstance, context: CompatContext): void {
  const created = Math.floor(Date.now() / 1000);
  app.get('/v1/models', { config: { wireError: renderOpenAIError } }, async (request, reply) =>
    reply.type('application/json').send({
      object: 'list',
      // Only what the client's key may use.
      data: routeNames(context.runtime.config)
        .filter((id) => mayName(request, id))
        .map((id) => ({
          id,
          object: 'model',
          created,
          owned_by: 'keel',
        })),
    }),
  );
}
