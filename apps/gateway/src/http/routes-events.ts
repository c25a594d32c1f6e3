import type { FastifyInstance, FastifyReply } from 'fastify';
import type { GatewayRuntime } from '../compose/create-runtime';
import { sendError } from './api-error';
import {
  limitParam,
  readLimit,
  SESSION_ID_PATTERN,
  type SessionParams,
  sessionParams,
} from './schemas';
import type { SessionWatchers } from './session-watchers';
import { openSse, type SseStream } from './sse';

/**
 * `GET /v1/sessions/:sessionId/events`: the session's recent turn and decision events; with
 * `?follow=1`, those and then every new one as server-sent events (`turn-event`).
 * `GET /v1/events?follow=1` follows every session and call (the console).
 * The compatible endpoints' calls, each a turn of its own: `GET /v1/calls` (the recent ones,
 * newest first: wire, route, outcome, the model that answered, usage, cost, decisions),
 * `GET /v1/calls/:callId` and `GET /v1/calls/:callId/events` (`?follow=1` as for a session).
 *
 * Followers cost memory while they stay: at most `events.maxFollowers` at once (past it `429`),
 * and one that stops reading has its events dropped past `events.followerBufferBytes` (it gets a
 * `gap` event with the count once it reads again), so a stalled client holds a bounded buffer.
 */
export function registerEventRoutes(
  app: FastifyInstance,
  runtime: GatewayRuntime,
  followers: Set<SseStream>,
  watchers: SessionWatchers,
): void {
  const limits = runtime.config.events;
  const follow = (
    reply: FastifyReply,
    recent: readonly unknown[],
    subscribe: (listener: (event: unknown) => void) => () => void,
  ): FastifyReply => {
    if (followers.size >= limits.maxFollowers) {
      return reply
        .code(429)
        .type('application/json')
        .send({
          error: {
            code: 'too_many_requests',
            message: `Too many event streams are open (events.maxFollowers is ${limits.maxFollowers}); close one and try again`,
          },
        });
    }
    startFollower(reply, followers, recent, subscribe, limits.followerBufferBytes);
    return reply;
  };

  // A session's follower counts as watching it (every session's, all of them) until it leaves.
  const watching = (sessionId: string | undefined, unfollow: () => void) => {
    const unwatch = watchers.watch(sessionId);
    return () => {
      unfollow();
      unwatch();
    };
  };

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
      return follow(reply, recent, (listener) =>
        watching(sessionId, runtime.events.follow(sessionId, listener)),
      );
    },
  );

  app.get<{ Querystring: { follow?: string; limit?: string } }>(
    '/v1/events',
    { schema: { querystring } },
    async (request, reply) => {
      if (!isOn(request.query.follow)) return { events: [] };
      return follow(reply, [], (listener) =>
        watching(undefined, runtime.events.follow(undefined, listener)),
      );
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
      return follow(reply, recent, (listener) => runtime.events.calls.follow(callId, listener));
    },
  );
}

function isOn(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}

function startFollower(
  reply: FastifyReply,
  followers: Set<SseStream>,
  recent: readonly unknown[],
  subscribe: (listener: (event: unknown) => void) => () => void,
  maxBufferBytes: number,
): void {
  const stream = openSse(reply, {}, { maxBufferBytes });
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
