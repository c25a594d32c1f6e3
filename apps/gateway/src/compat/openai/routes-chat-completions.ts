// `POST /v1/chat/completions`: an OpenAI client's stateless call through Keel's failover, answered
// as a `chat.completion` or a stream of chunks, errors in OpenAI's shape.
import type { CallOutcome, ModelRequest } from '@keel/spec';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { clientOf, mayName, ticketOf } from '../../keys/client-of';
import type { CompatContext } from '../compat-context';
import { idempotencyKeyOf } from '../idempotency-key';
import { resolveRoute } from '../resolve-route';
import { streamModeOf } from '../stream-mode';
import { chatCompletionOf } from './chat-completion';
import { parseChatRequest } from './chat-request-schema';
import { openAIErrorBody, outcomeError, renderOpenAIError, sendOpenAIError } from './openai-error';
import { type RunChatCall, sendOutcomeStream, streamBuffered, streamLive } from './stream-chat';
import { toModelRequest } from './to-model-request';

function badRequest(reply: FastifyReply, message: string, param: string | null): FastifyReply {
  return sendOpenAIError(reply, {
    status: 400,
    headers: {},
    body: openAIErrorBody(message, 'invalid_request_error', { param }),
  });
}

/** Said with a 400 when the request asked for a format not every model honours. */
function hintFor(request: Omit<ModelRequest, 'model'>): string | undefined {
  const format = request.responseFormat?.type;
  return format === undefined || format === 'text'
    ? undefined
    : `The route's models may not support response_format "${format}".`;
}

export function registerChatCompletionsRoute(app: FastifyInstance, context: CompatContext): void {
  const { config } = context.runtime;
  app.post(
    '/v1/chat/completions',
    { config: { wireError: renderOpenAIError } },
    async (request, reply) => {
      const parsed = parseChatRequest(request.body);
      if (!parsed.ok) return badRequest(reply, parsed.message, parsed.param);
      const body = parsed.body;
      // A model the client's key may not use is answered as one that does not exist.
      const route = mayName(request, body.model) ? resolveRoute(config, body.model) : undefined;
      if (route === undefined) {
        return sendOpenAIError(reply, {
          status: 404,
          headers: {},
          body: openAIErrorBody(
            `The model "${body.model.slice(0, 200)}" does not exist: GET /v1/models lists the routes and models`,
            'invalid_request_error',
            { code: 'model_not_found', param: 'model' },
          ),
        });
      }
      const mode = streamModeOf(request.headers['x-keel-stream-mode'], config);
      if (mode === undefined) {
        return badRequest(reply, 'x-keel-stream-mode must be "live" or "buffered"', null);
      }
      const translated = toModelRequest(body);
      if (!translated.ok) return badRequest(reply, translated.message, translated.param);
      const hint = hintFor(translated.request);

      const streamed = body.stream === true;
      // A client that asked for no stream: the upstream call need not stream either.
      const callRequest = streamed
        ? translated.request
        : { ...translated.request, delivery: 'whole' as const };
      const run: RunChatCall = ({ onEvent, signal }) =>
        context.call({
          wire: 'openai',
          route,
          request: callRequest,
          signal,
          key: clientOf(request)?.keyId,
          ticket: ticketOf(request),
          ...(onEvent === undefined ? {} : { onEvent }),
        });
      const includeUsage = body.stream_options?.include_usage === true;
      const idempotencyKey = idempotencyKeyOf('openai', request.headers);

      // A repeat of a known key joins (or replays) the first answer, rendered for its own flag.
      let runOnce = run;
      if (idempotencyKey !== undefined) {
        // The first request's call starts when its handler runs it, with its own events and signal.
        let startFirst: RunChatCall | undefined;
        const joined = context.idempotency.run(
          idempotencyKey,
          () =>
            new Promise<CallOutcome>((resolve, reject) => {
              startFirst = (options) => {
                const result = run(options);
                result.then(resolve, reject);
                return result;
              };
            }),
        );
        if (joined.repeated) {
          const outcome = await joined.result;
          return streamed
            ? sendOutcomeStream(reply, outcome, {
                includeUsage,
                ...(hint === undefined ? {} : { hint }),
              })
            : sendJson(reply, outcome, hint);
        }
        runOnce = (options) => startFirst?.(options) ?? joined.result;
      }

      if (!streamed) {
        const controller = new AbortController();
        const stopOnLeave = () => {
          if (!reply.raw.writableFinished) controller.abort(new Error('client went away'));
        };
        reply.raw.once('close', stopOnLeave);
        const outcome = await runOnce({ signal: controller.signal });
        reply.raw.off('close', stopOnLeave);
        if (controller.signal.aborted) return reply;
        return sendJson(reply, outcome, hint);
      }
      const options = {
        reply,
        run: runOnce,
        includeUsage,
        ...(hint === undefined ? {} : { hint }),
      };
      return mode === 'buffered' ? streamBuffered(options) : streamLive(options);
    },
  );
}

function sendJson(
  reply: FastifyReply,
  outcome: CallOutcome,
  hint: string | undefined,
): FastifyReply {
  if (outcome.kind !== 'reply') return sendOpenAIError(reply, outcomeError(outcome, hint));
  return reply.type('application/json').send(chatCompletionOf(outcome));
}
