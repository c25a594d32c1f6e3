import type { FastifyInstance } from 'fastify';
import type { GatewayRuntime } from '../compose/create-runtime';
import { limitParam, readLimit, type SessionParams, sessionParams } from './schemas';
import { openSse, type SseStream } from './sse';

/**
 * `GET /v1/sessions/:sessionId/events`: the session's recent turn and decision events; with
 * `?follow=1`, those and then every new one as server-sent events (`turn-event`).
 * `GET /v1/events?follow=1` follows every session (the console).
 */
export function registerEventRoutes(
  app: FastifyInstance,
  runtime: GatewayRuntime,
  followers: Set<SseStream>,
): void {
  const querystring = {
    type: 'object',
    properties: {
      follow: { type: 'string', enum: ['0', '1', 'true', 'false'] },
      limit: limitParam,
    },
  } as const;

  app.get<{ Params: SessionParams; Querystring: { follow?: string; limit?: string } }>(
    '/v1/sessions/:sessionId/events',
    { schema: { params: sessionParams, querystring } },
    async (request, reply) => {
      const { sessionId } = request.params;
      const recent = runtime.events.recent(sessionId, readLimit(request.query.limit));
      if (!isOn(request.query.follow)) return { events: recent };
      follow(reply, followers, recent, (listener) => runtime.events.follow(sessionId, listener));
      return reply;
    },
  );

  app.get<{ Querystring: { follow?: string; limit?: string } }>(
    '/v1/events',
    { schema: { querystring } },
    async (request, reply) => {
      if (!isOn(request.query.follow)) return { events: [] };
      follow(reply, followers, [], (listener) => runtime.events.follow(undefined, listener));
      return reply;
    },
  );
}

function isOn(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}

function follow(
  reply: Parameters<typeof openSse>[0],
  followers: Set<SseStream>,
  recent: readonly unknown[],
  subscribe: (listener: (event: unknown) => void) => () => void,
): void {
  const stream = openSse(reply);
  followers.add(stream);
  for (const event of recent) stream.send('turn-event', event);
  const unsubscribe = subscribe((event) => stream.send('turn-event', event));
  const keepAlive = setInterval(() => stream.comment('keep-alive'), 15_000);
  keepAlive.unref();
  stream.onClose(() => {
    followers.delete(stream);
    clearInterval(keepAlive);
    unsubscribe();
  });
}
