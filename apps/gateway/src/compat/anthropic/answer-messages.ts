// `POST /v1/messages`: checks the request, resolves its route, runs the call once per
// `Idempotency-Key`, and answers as a `message`, a buffered stream or a live one.
import { createHash } from 'node:crypto';
import type { CallOutcome } from '@keel/spec';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { openSse } from '../../http/sse';
import { clientOf, mayName, ticketOf } from '../../keys/client-of';
import type { CompatContext } from '../compat-context';
import { idempotencyKeyOf } from '../idempotency-key';
import { resolveRoute } from '../resolve-route';
import { streamModeOf } from '../stream-mode';
import { outcomeError, sendAnthropicError } from './anthropic-error';
import { createAnthropicEventWriter } from './anthropic-event-writer';
import { anthropicUsage, stopReason, toAnthropicMessage } from './anthropic-message';
import { AnthropicRequestError, messagesBody, parseOrThrow } from './anthropic-request';
import { createLiveStream, type LiveStream } from './stream-live';
import { toModelRequest } from './to-model-request';

export async function answerMessages(
  context: CompatContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { config } = context.runtime;
  const mode = streamModeOf(request.headers['x-keel-stream-mode'], config);
  if (mode === undefined) {
    return badRequest(reply, 'x-keel-stream-mode: must be "live" or "buffered"');
  }
  let body: ReturnType<typeof messagesBody.parse>;
  let callRequest: ReturnType<typeof toModelRequest>;
  try {
    body = parseOrThrow(messagesBody, request.body ?? {});
    callRequest = toModelRequest(body);
  } catch (error) {
    if (error instanceof AnthropicRequestError) return badRequest(reply, error.message);
    throw error;
  }
  // A model the client's key may not use is answered as one that does not exist.
  const route = mayName(request, body.model) ? resolveRoute(config, body.model) : undefined;
  if (route === undefined) {
    return sendAnthropicError(reply, {
      status: 404,
      type: 'not_found_error',
      message: `model: "${body.model.slice(0, 100)}" is not a route or configured model of this gateway`,
    });
  }

  // A client that goes away, or a live stream that failed, stops the call.
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client went away'));
  });
  const live: LiveStream | undefined =
    body.stream === true && mode === 'live'
      ? createLiveStream({ reply, idOf: messageIdOf, abort: () => controller.abort() })
      : undefined;
  const run = () =>
    context.call({
      wire: 'anthropic',
      route,
      // A client that asked for no stream: the upstream call need not stream either.
      request: body.stream === true ? callRequest : { ...callRequest, delivery: 'whole' },
      signal: controller.signal,
      key: clientOf(request)?.keyId,
      ticket: ticketOf(request),
      ...(live === undefined ? {} : { onEvent: (event) => live.onEvent(event) }),
    });
  const key = idempotencyKeyOf('anthropic', request.headers);
  const outcome = key === undefined ? await run() : await context.idempotency.run(key, run).result;

  if (live?.started() === true) {
    live.end(outcome);
    return reply;
  }
  if (outcome.kind !== 'reply') return sendAnthropicError(reply, outcomeError(outcome));
  if (body.stream !== true) {
    return reply.send(
      toAnthropicMessage(outcome, { id: messageIdOf(outcome.callId), model: route.name }),
    );
  }
  replayStream(reply, outcome, route.name);
  return reply;
}

/** A finished reply as one complete stream (buffered mode, a repeat, or nothing streamed live). */
function replayStream(reply: FastifyReply, outcome: CallOutcome, routeName: string): void {
  const message = toAnthropicMessage(outcome, {
    id: messageIdOf(outcome.callId),
    model: routeName,
  });
  const sse = openSse(reply, {}, { flush: false });
  const writer = createAnthropicEventWriter(sse.send);
  writer.start({ id: message.id, model: message.model, usage: message.usage });
  for (const block of message.content) {
    if (block.type === 'text') writer.text(block.text);
    else writer.toolUse(block);
  }
  writer.finish(stopReason(outcome.finish, outcome.content), anthropicUsage(outcome.usage));
  sse.end();
}

/** The message id of a call: the same for every repeat of it. */
function messageIdOf(callId: string): string {
  return `msg_${createHash('sha256').update(callId).digest('hex').slice(0, 24)}`;
}

function badRequest(reply: FastifyReply, message: string): FastifyReply {
  return sendAnthropicError(reply, { status: 400, type: 'invalid_request_error', message });
}
