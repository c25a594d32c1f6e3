import type { FastifyInstance } from 'fastify';
import type { GatewayRuntime } from '../compose/create-runtime';
import { createRateWindow } from '../stats/create-rate-window';

/**
 * `GET /v1/stats/rates[?minutes=15]`: model requests, failed attempts and `fallback_model`
 * decisions in 10-second buckets over the last minutes (at most 60), and per provider; counted
 * from turn events since the gateway started.
 */
export function registerStatsRoutes(app: FastifyInstance, runtime: GatewayRuntime): void {
  const rates = createRateWindow();
  const unsubscribe = runtime.events.follow(undefined, rates.observe);
  app.addHook('onClose', async () => unsubscribe());

  app.get<{ Querystring: { minutes?: string } }>(
    '/v1/stats/rates',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: { minutes: { type: 'string', pattern: '^([1-9]|[1-5][0-9]|60)$' } },
        },
      },
    },
    async (request) =>
      rates.read({ sinceMs: Number(request.query.minutes ?? 15) * 60_000, now: Date.now() }),
  );
}
