import { sanitizeForLog } from '@keel/error-classification';
import type { FastifyInstance } from 'fastify';
import type { GatewayRuntime } from '../compose/create-runtime';
import { configuredModels } from '../compose/model-settings';
import { visibleSessions } from '../keys/client-of';
import { sendError } from './api-error';
import {
  compactBody,
  limitParam,
  modelBody,
  readLimit,
  type SessionParams,
  sessionParams,
} from './schemas';
import { readListSummary, readSummary, type SessionSummary } from './session-summary';

/** Session reads, the live model switch and manual compaction. */
export function registerSessionRoutes(app: FastifyInstance, runtime: GatewayRuntime): void {
  const { storage, orchestrator, config } = runtime;
  const primary = config.models.primary;
  const selectable = configuredModels(config);

  app.get<{ Querystring: { prefix?: string; limit?: string } }>(
    '/v1/sessions',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: {
            prefix: { type: 'string', maxLength: 128 },
            limit: limitParam,
          },
        },
      },
    },
    async (request) => {
      const prefix = request.query.prefix ?? '';
      const limit = readLimit(request.query.limit) ?? 200;
      // A client key lists only the sessions it created (on any gateway, over PostgreSQL).
      const visible = await visibleSessions(request);
      const ids = (await storage.list()).filter((id) => id.startsWith(prefix) && visible(id));
      const summaries: SessionSummary[] = [];
      // Each from its transcript's tail: a long transcript costs no more than a short one.
      for (const id of ids) {
        const summary = await readListSummary(storage, id, {
          primary,
          running: orchestrator.isRunning(id),
          onSkipped: (sessionId, error) =>
            request.log.warn(
              { sessionId, err: error },
              'session skipped in the list: not a regular file',
            ),
        });
        if (summary !== undefined) summaries.push(summary);
      }
      summaries.sort((a, b) => (b.lastActivity ?? '').localeCompare(a.lastActivity ?? ''));
      return { sessions: summaries.slice(0, limit) };
    },
  );

  app.get<{ Params: SessionParams }>(
    '/v1/sessions/:sessionId',
    { schema: { params: sessionParams } },
    async (request, reply) => {
      const { sessionId } = request.params;
      const summary = await readSummary(
        storage,
        sessionId,
        primary,
        orchestrator.isRunning(sessionId),
      );
      return summary ?? sendError(reply, 'not_found', `No session ${sessionId}`);
    },
  );

  app.get<{ Params: SessionParams }>(
    '/v1/sessions/:sessionId/transcript',
    { schema: { params: sessionParams } },
    async (request, reply) => {
      const read = await storage.read(request.params.sessionId);
      if (!read.exists)
        return sendError(reply, 'not_found', `No session ${request.params.sessionId}`);
      return { entries: read.entries };
    },
  );

  app.put<{ Params: SessionParams; Body: { model: string } }>(
    '/v1/sessions/:sessionId/model',
    { schema: { params: sessionParams, body: modelBody } },
    async (request, reply) => {
      const { model } = request.body;
      if (!selectable.includes(model)) {
        return sendError(
          reply,
          'invalid_request',
          // The name as escaped text: no control or bidi character reaches a console or terminal.
          `Model "${sanitizeForLog(model, { maxLength: 80 })}" is not configured; choose one of: ${selectable.join(', ')} (the primary, the fallbacks and the keys of models.settings)`,
        );
      }
      try {
        await orchestrator.selectModel(request.params.sessionId, request.body.model);
      } catch (error) {
        if ((error as { name?: string }).name === 'OrchestratorConfigError') {
          return sendError(reply, 'invalid_request', (error as Error).message);
        }
        throw error;
      }
      return { sessionId: request.params.sessionId, model: request.body.model };
    },
  );

  app.post<{ Params: SessionParams; Body: { focus?: string } | null }>(
    '/v1/sessions/:sessionId/compact',
    { schema: { params: sessionParams, body: compactBody } },
    async (request) => {
      const focus = request.body?.focus;
      try {
        const result = await orchestrator.compact(
          request.params.sessionId,
          focus === undefined ? {} : { focus },
        );
        if (result.status === 'compacted') {
          runtime.metrics.countCompaction('manual', 'compacted');
          const { provenance } = result.entry;
          return {
            compacted: true,
            entryId: result.entry.id,
            producerId: provenance.producerId,
            tokensBefore: provenance.tokensBefore,
            tokensAfter: provenance.tokensAfter,
          };
        }
        return {
          compacted: false,
          reason: result.reason,
          ...(result.detail === undefined ? {} : { detail: result.detail }),
        };
      } catch (error) {
        if ((error as { name?: string }).name === 'CompactionError') {
          runtime.metrics.countCompaction('manual', 'failed');
          return { compacted: false, reason: 'failed' };
        }
        throw error;
      }
    },
  );
}
