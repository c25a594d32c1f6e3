// Streams a call to an OpenAI client. `live`: the stream opens with the first output and text
// flows as it comes; if that output is then voided (a discard, another attempt's output) or the
// call fails, the client gets an in-band error, no `[DONE]`, and the call is stopped. `buffered`:
// nothing is sent until the call's outcome, then the whole answer as one normal stream.
import type { CallOutcome, TurnEvent } from '@keel/spec';
import type { FastifyReply } from 'fastify';
import { type ChunkWriter, closingChunks, createChunkWriter, outcomeChunks } from './chat-chunks';
import { completionId, toolCallOf } from './chat-completion';
import { type DataStream, openDataStream } from './data-stream';
import { type OpenAIError, outcomeError, sendOpenAIError } from './openai-error';

/** Runs the call; `onEvent` sees its events, `signal` stops it. */
export type RunChatCall = (options: {
  onEvent?: (event: TurnEvent) => void;
  signal: AbortSignal;
}) => Promise<CallOutcome>;

export interface StreamChatOptions {
  reply: FastifyReply;
  run: RunChatCall;
  includeUsage: boolean;
  /** Said after a 400 (e.g. which field may be unsupported). */
  hint?: string;
}

/** A call that did not answer, before any byte: its status; after: an in-band error, no `[DONE]`. */
function fail(stream: DataStream, error: OpenAIError): void {
  stream.send(error.body);
  stream.end();
}

/** Whole answers: the outcome's chunks then `[DONE]`, or the error's status. */
export function sendOutcomeStream(
  reply: FastifyReply,
  outcome: CallOutcome,
  options: { includeUsage: boolean; hint?: string },
): FastifyReply {
  if (outcome.kind !== 'reply') return sendOpenAIError(reply, outcomeError(outcome, options.hint));
  const stream = openDataStream(reply);
  for (const chunk of outcomeChunks(outcome, options.includeUsage)) stream.send(chunk);
  stream.done();
  return reply;
}

/** `buffered`: the call runs to its outcome first; a cut or stalled attempt is never seen. */
export async function streamBuffered(options: StreamChatOptions): Promise<FastifyReply> {
  const controller = new AbortController();
  const stopOnLeave = () => {
    if (!options.reply.raw.writableFinished) controller.abort(new Error('client went away'));
  };
  options.reply.raw.once('close', stopOnLeave);
  const outcome = await options.run({ signal: controller.signal });
  options.reply.raw.off('close', stopOnLeave);
  if (controller.signal.aborted) return options.reply;
  return sendOutcomeStream(options.reply, outcome, options);
}

/** `live`: text as it arrives; a failure after the first byte is in-band and final. */
export async function streamLive(options: StreamChatOptions): Promise<FastifyReply> {
  const { reply } = options;
  const controller = new AbortController();
  const targets = new Map<number, string>();
  let stream: DataStream | undefined;
  let writer: ChunkWriter | undefined;
  let shownAttempt: number | undefined;
  let failed = false;

  const stopOnLeave = () => {
    if (stream === undefined && !reply.raw.writableFinished)
      controller.abort(new Error('client went away'));
  };
  reply.raw.once('close', stopOnLeave);

  const voided = () => {
    if (stream === undefined || failed) return;
    failed = true;
    fail(stream, {
      status: 502,
      headers: {},
      body: {
        error: {
          message:
            'The model stopped answering part-way through; the partial answer is void. Please send the request again.',
          type: 'server_error',
          param: null,
          code: 'stream_interrupted',
        },
      },
    });
    controller.abort(new Error('the live stream failed'));
  };

  const open = (event: TurnEvent & { attempt: number }) => {
    if (stream !== undefined) return;
    reply.raw.off('close', stopOnLeave);
    stream = openDataStream(reply);
    stream.onClose(() => {
      if (!controller.signal.aborted) controller.abort(new Error('client went away'));
    });
    shownAttempt = event.attempt;
    writer = createChunkWriter({
      id: completionId(event.sessionId),
      created: Math.floor(event.at / 1000),
      model: targets.get(event.attempt) ?? 'unknown',
    });
    stream.send(writer.role());
  };

  const onEvent = (event: TurnEvent) => {
    if (failed) return;
    switch (event.type) {
      case 'attempt-start':
        targets.set(event.attempt, `${event.target.providerId}/${event.target.model}`);
        return;
      case 'discard':
        voided();
        return;
      case 'model-event': {
        const model = event.event;
        const output =
          ((model.type === 'text-delta' || model.type === 'refusal') && model.text !== '') ||
          model.type === 'tool-call';
        if (!output) return;
        if (stream !== undefined && event.attempt !== shownAttempt) return voided();
        open(event);
        if (model.type === 'tool-call') {
          stream?.send(
            writer?.toolCall(
              toolCallOf({ type: 'tool_use', id: model.id, name: model.name, input: model.input }),
            ),
          );
        } else if (model.type === 'text-delta' || model.type === 'refusal') {
          stream?.send(writer?.text(model.text));
        }
        return;
      }
      default:
        return;
    }
  };

  const outcome = await options.run({ onEvent, signal: controller.signal });
  reply.raw.off('close', stopOnLeave);
  if (failed) return reply;
  if (stream === undefined || writer === undefined) {
    if (controller.signal.aborted) return reply;
    return sendOutcomeStream(reply, outcome, options);
  }
  if (outcome.kind !== 'reply') {
    fail(stream, outcomeError(outcome, options.hint));
    return reply;
  }
  for (const chunk of closingChunks(writer, outcome, options.includeUsage)) stream.send(chunk);
  stream.done();
  return reply;
}
