import type { FastifyInstance } from 'fastify';
import type { GatewayRuntime } from '../compose/create-runtime';

/** Liveness, Prometheus metrics and provider health. */
export function registerOpsRoutes(
  app: FastifyInstance,
  runtime: GatewayRuntime,
  state: { stopping: boolean },
): void {
  app.get('/healthz', async (_request, reply) =>
    state.stopping ? reply.code(503).send({ status: 'stopping' }) : { status: 'ok' },
  );

  app.get('/metrics', async (_request, reply) =>
    reply.type(runtime.metrics.registry.contentType).send(await runtime.metrics.registry.metrics()),
  );

  app.get('/v1/providers/health', async () => runtime.orchestrator.health.snapshot());
}
