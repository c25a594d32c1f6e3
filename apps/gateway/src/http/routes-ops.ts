import type { FastifyInstance } from 'fastify';
import type { GatewayRuntime } from '../compose/create-runtime';
import { type StorageNotice, storageStatusOf } from '../compose/storage-status';
import { registerStorageOutcomes } from './error-handling';

/** How long `/healthz` waits for the session store to answer before it says not ready. */
const READY_TIMEOUT_MS = 2_000;

/**
 * Liveness and readiness (`/healthz`: `503` while stopping, or while the session store does not
 * answer), Prometheus metrics and provider health. Storage failures are logged at error level and
 * transcript lines a read skipped as warnings, each with its session.
 */
export function registerOpsRoutes(
  app: FastifyInstance,
  runtime: GatewayRuntime,
  state: { stopping: boolean },
): void {
  const storage = storageStatusOf(runtime.storage);
  if (storage !== undefined) {
    registerStorageOutcomes(app, storage);
    const unsubscribe = storage.subscribe((notice) => logStorageNotice(app, notice));
    app.addHook('onClose', async () => {
      unsubscribe();
    });
  }

  app.get('/healthz', async (_request, reply) => {
    if (state.stopping) return reply.code(503).send({ status: 'stopping' });
    const ready = await storage?.ready(AbortSignal.timeout(READY_TIMEOUT_MS));
    if (ready !== undefined && !ready.ready) {
      return reply.code(503).send({ status: 'unready', storage: ready.reason });
    }
    return { status: 'ok' };
  });

  app.get('/metrics', async (_request, reply) =>
    reply.type(runtime.metrics.registry.contentType).send(await runtime.metrics.registry.metrics()),
  );

  // Breakers and cooldowns, and what is left of each configured provider budget.
  app.get('/v1/providers/health', async () => ({
    ...(await runtime.orchestrator.health.snapshot()),
    budgets: await runtime.budgets.snapshot(),
  }));
}

function logStorageNotice(app: FastifyInstance, notice: StorageNotice): void {
  if (notice.type === 'failure') {
    app.log.error(
      {
        sessionId: notice.sessionId,
        storage: { reason: notice.reason, operation: notice.operation, code: notice.code },
      },
      'storage failed',
    );
    return;
  }
  for (const issue of notice.issues.slice(0, 20)) {
    app.log.warn(
      {
        sessionId: notice.sessionId,
        line: issue.line,
        offset: issue.offset,
        reason: issue.reason,
      },
      'transcript line skipped: it cannot be read',
    );
  }
  if (notice.issues.length > 20) {
    app.log.warn(
      { sessionId: notice.sessionId, more: notice.issues.length - 20 },
      'more transcript lines skipped',
    );
  }
}
