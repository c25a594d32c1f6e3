import type { FastifyInstance } from 'fastify';
import type { GatewayRuntime } from '../compose/create-runtime';
import { sendError } from './api-error';
import {
  limitParam,
  readLimit,
  SESSION_ID_PATTERN,
  type SessionParams,
  sessionParams,
} from './schemas';
import { openSse, type SseStream } from './sse';

/**
 * `GET /v1/sessions/:sessionId/events`: the session's recent turn and decision events; with
 * `?follow=1`, those and then every new one as server-sent events (`turn-event`).
 * `GET /v1/events?follow=1` follows every session and call (the console).
 * The compatible endpoints' calls, each a turn of its own: `GET /v1/calls` (the recent ones,
 * newest first: wire, route, outcome, the model that answered, usage, cost, decisions),
 * `GET /v1/calls/:callId` and `GET /v1/calls/:callId/events` (`?follow=1` as for a session).
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

  const callParams = {
    type: 'object',
    required: ['callId'],
    properties: { callId: { type: 'string', pattern: SESSION_ID_PATTERN } },
  } as const;

  app.get<{ Querystring: { limit?: string } }>(
    '/v1/calls',
    { schema: { querystring: { type: 'object', properties: { limit: limitParam } } } },
    async (request) => ({ calls: runtime.callLog.list(readLimit(request.query.limit)) }),
  );

  app.get<{ Params: { callId: string } }>(
    '/v1/calls/:callId',
    { schema: { params: callParams } },
    async (request, reply) => {
      const call = runtime.callLog.get(request.params.callId);
      return call ?? sendError(reply, 'not_found', `No recent call ${request.params.callId}`);
    },
  );

  app.get<{ Params: { callId: string }; Querystring: { follow?: string; limit?: string } }>(
    '/v1/calls/:callId/events',
    { schema: { params: callParams, querystring } },
    async (request, reply) => {
      const { callId } = request.params;
      const recent = runtime.events.calls.recent(callId, readLimit(request.query.limit));
      if (!isOn(request.query.follow)) return { events: recent };
      follow(reply, followers, recent, (listener) => runtime.events.calls.follow(callId, listener));
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
