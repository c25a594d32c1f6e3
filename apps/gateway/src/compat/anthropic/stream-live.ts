// The live mode of a streamed Messages answer: text and tool calls go to the client as they arrive.
// The stream opens only with the first model output, so a call that fails before it is still an
// HTTP status; once bytes went out, a failed attempt can only be an in-band `event: error` and an
// end without `message_stop` (never a retry's text glued onto a discarded one).
import type { CallOutcome, ErrorKind, TurnEvent } from '@keel/spec';
import type { FastifyReply } from 'fastify';
import { openSse, type SseStream } from '../../http/sse';
import { streamErrorBody } from './anthropic-error';
import { createAnthropicEventWriter } from './anthropic-event-writer';
import { anthropicUsage, stopReason } from './anthropic-message';

export interface LiveStream {
  /** Give the call's events here. */
  onEvent(event: TurnEvent): void;
  /** Whether the client has bytes (errors then go in-band). */
  started(): boolean;
  /** Whether the stream already ended in an in-band error. */
  failed(): boolean;
  /** Ends the stream with the outcome of a call that started it: `message_stop`, or the error. */
  end(outcome: CallOutcome): void;
}

export interface LiveStreamOptions {
  reply: FastifyReply;
  /** The message id for a call id (the same for a repeat of the call). */
  idOf: (callId: string) => string;
  /** Stops the call: nothing more is tried once the client saw a failure. */
  abort: () => void;
}

export function createLiveStream({ reply, idOf, abort }: LiveStreamOptions): LiveStream {
  let sse: SseStream | undefined;
  const writer = createAnthropicEventWriter((name, data) => sse?.send(name, data));
  let model = '';
  let lastError: ErrorKind | undefined;
  let failed = false;

  const open = (callId: string) => {
    if (writer.started()) return;
    sse = openSse(reply, {}, { flush: false });
    writer.start({ id: idOf(callId), model, usage: anthropicUsage(undefined) });
  };
  const fail = (kind: ErrorKind | 'switch_model' | undefined) => {
    if (failed) return;
    failed = true;
    sse?.send('error', streamErrorBody(kind));
    sse?.end();
    abort();
  };

  return {
    // Methods, not getters: a getter in a literal keeps the call's scope alive through every
    // scavenge until the next full collection (CONTRIBUTING.md, "Objects on the hot path").
    started: () => writer.started(),
    failed: () => failed,
    onEvent(event) {
      if (failed) return;
      switch (event.type) {
        case 'attempt-start':
          // Another attempt after bytes went out: the one the client saw has failed.
          if (writer.started()) fail(lastError);
          model = `${event.target.providerId}/${event.target.model}`;
          return;
        case 'attempt-error':
          lastError = event.kind;
          return;
        case 'discard':
          if (writer.started()) fail(event.reason);
          return;
        case 'model-event': {
          const output = event.event;
          if (output.type === 'text-delta' || output.type === 'refusal') {
            if (output.text === '') return;
            open(event.sessionId);
            writer.text(output.text);
          } else if (output.type === 'tool-call') {
            open(event.sessionId);
            writer.toolUse({ id: output.id, name: output.name, input: output.input });
          }
          return;
        }
        default:
          return;
      }
    },
    end(outcome) {
      if (failed) return;
      if (outcome.kind !== 'reply') {
        fail(outcome.errorKind);
        return;
      }
      writer.finish(stopReason(outcome.finish, outcome.content), anthropicUsage(outcome.usage));
      sse?.end();
    },
  };
}
