import type { TurnEvent } from '@keel/spec';
import type { FastifyInstance } from 'fastify';
import type { GatewayRuntime } from '../compose/create-runtime';
import { outcomeBody, retryAfterHeader } from './outcome-body';
import { messageBody, type SessionParams, sessionParams } from './schemas';
import type { SessionWatchers } from './session-watchers';
import { openSse } from './sse';
import { toolCallData, toolResultData } from './tool-event-data';

interface MessageBody {
  text: string;
  clientMessageId?: string;
}

/**
 * `POST /v1/sessions/:sessionId/messages`: the turn's outcome as JSON, or with
 * `Accept: text/event-stream` its text deltas, decisions and discards, then one `outcome` event.
 * A client that goes away does not stop the turn: its answer is kept for a retry with the same
 * `clientMessageId`.
 */
export function registerMessageRoutes(
  app: FastifyInstance,
  runtime: GatewayRuntime,
  watchers: SessionWatchers,
): void {
  app.post<{ Params: SessionParams; Body: MessageBody }>(
    '/v1/sessions/:sessionId/messages',
    { schema: { params: sessionParams, body: messageBody } },
    async (request, reply) => {
      const { sessionId } = request.params;
      const { text, clientMessageId } = request.body;
      const turn = {
        sessionId,
        input: text,
        ...(clientMessageId === undefined ? {} : { clientMessageId }),
      };
      if (!wantsEventStream(request.headers.accept)) {
        // Taken whole: unless a client follows the session live, nobody sees the turn before its
        // end, and the message is made durable with the reply (one fsync instead of two).
        const outcome = await runtime.orchestrator.runTurn({
          ...turn,
          messageFlush: watchers.watched(sessionId) ? 'own' : 'with-reply',
        });
        return reply.headers(retryAfterHeader(outcome)).send(outcomeBody(outcome, runtime.prices));
      }
      const stream = openSse(reply);
      const outcome = await runtime.orchestrator.runTurn({
        ...turn,
        onEvent: (event) => forward(event, stream.send),
      });
      stream.send('outcome', outcomeBody(outcome, runtime.prices));
      stream.end();
      return reply;
    },
  );
}

function wantsEventStream(accept: string | undefined): boolean {
  return accept !== undefined && /(^|,)\s*text\/event-stream\b/i.test(accept);
}

/** What a streaming client sees of a turn: text, tool activity, decisions, and discards. */
function forward(event: TurnEvent, send: (name: string, data: unknown) => void): void {
  switch (event.type) {
    case 'turn-start':
      send('turn-start', { turnId: event.turnId, messageId: event.messageId });
      return;
    case 'attempt-start':
      send('attempt-start', { attempt: event.attempt, target: event.target });
      return;
    case 'model-event':
      if (event.event.type === 'text-delta' || event.event.type === 'refusal') {
        send('delta', { attempt: event.attempt, text: event.event.text });
      } else if (event.event.type === 'tool-call') {
        send('tool-call', toolCallData(event.attempt, event.event));
      }
      return;
    case 'tool-run':
      send('tool-result', toolResultData(event));
      return;
    case 'discard':
      send('discard', { attempt: event.attempt, reason: event.reason });
      return;
    case 'decision':
      send('decision', {
        label: event.label,
        reason: event.reason,
        ...(event.from === undefined ? {} : { from: event.from }),
        ...(event.to === undefined ? {} : { to: event.to }),
        ...(event.delayMs === undefined ? {} : { delayMs: event.delayMs }),
      });
      return;
    default:
      return;
  }
}
