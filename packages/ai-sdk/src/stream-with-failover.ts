/**
 * `doStream` with failover. Before the first part reaches the caller every failure is retried or
 * fallen over invisibly: parts are held until the attempt produced output (`live`) or completed
 * (`buffered`). After that, in `live` mode a failure ends the stream with an error part and no
 * `finish` — never a truncated stream that looks finished. A stream that ends without `finish`
 * counts as cut.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import { type CallState, emit, report } from './call-runtime';
import { IncompleteStreamError } from './incomplete-stream-error';
import { withKeelMetadata } from './keel-metadata';
import { KeelModelError } from './keel-model-error';
import { type Answer, recordFailure, runFailover } from './run-failover';
import { type AttemptWatch, watchAttempt } from './watch-attempt';

type Part = LanguageModelV4StreamPart;

/**
 * Parts that carry no output yet (an empty text block's start, provider bookkeeping): held back
 * without committing the attempt.
 */
const PREAMBLE: ReadonlySet<Part['type']> = new Set([
  'stream-start',
  'response-metadata',
  'raw',
  'ping',
  'custom',
  'text-start',
  'reasoning-start',
]);

/**
 * Finish reasons that say the answer is not whole: the provider's stream ended without its
 * completion signal (`interrupted`), or stopped on an error it did not send as a part.
 */
const CUT: ReadonlySet<string> = new Set(['interrupted', 'error']);

function cutError(part: Part & { type: 'finish' }): IncompleteStreamError | undefined {
  if (!CUT.has(part.finishReason.unified)) return undefined;
  return new IncompleteStreamError({
    message: `The model stream finished as "${part.finishReason.unified}": the answer is incomplete.`,
  });
}

interface OpenedStream {
  result: LanguageModelV4StreamResult;
  held: Part[];
  /** The rest of the stream (live mode), `undefined` when `held` is the whole answer. */
  reader: ReadableStreamDefaultReader<Part> | undefined;
  watch: AttemptWatch;
}

export async function streamWithFailover(
  state: CallState,
  options: LanguageModelV4CallOptions,
): Promise<LanguageModelV4StreamResult> {
  const buffered = state.runtime.streamMode === 'buffered';
  const answer = await runFailover(state, (model) =>
    open(model, options, buffered, watchAttempt(state.signal, state.runtime.timeouts)),
  );
  const { result, held, reader, watch } = answer.value;
  const queue = withModelId(held, answer.model);
  let ended = false;

  const finishUp = async (part: Part & { type: 'finish' }): Promise<Part> => {
    watch.stop();
    emit(state, { type: 'attempt-end', attempt: answer.attempt, target: answer.target });
    await report(state, { type: 'success', target: answer.target, probe: answer.probe });
    return { ...part, providerMetadata: withKeelMetadata(part.providerMetadata, state, answer) };
  };

  const stream = new ReadableStream<Part>({
    async pull(controller) {
      const queued = queue.shift();
      if (queued !== undefined) {
        controller.enqueue(queued.type === 'finish' ? await finishUp(queued) : queued);
        return;
      }
      if (ended || reader === undefined) {
        controller.close();
        return;
      }
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await watch.reading(reader.read());
      } catch (error) {
        ended = true;
        await endLive(state, answer, watch.explain(error), controller);
        return;
      }
      if (next.done) {
        ended = true;
        const cut = new IncompleteStreamError({
          message: 'The model stream ended without a finish part.',
        });
        await endLive(state, answer, cut, controller);
        return;
      }
      const part = next.value;
      if (part.type === 'error') {
        ended = true;
        reader.cancel().catch(() => undefined);
        await endLive(state, answer, part.error, controller);
        return;
      }
      if (part.type === 'finish') {
        ended = true;
        const cut = cutError(part);
        if (cut !== undefined) await endLive(state, answer, cut, controller);
        else controller.enqueue(await finishUp(part));
        return;
      }
      controller.enqueue(part);
    },
    async cancel(reason) {
      watch.stop();
      if (!ended) {
        // The caller stopped reading: no verdict on the model, but a probe it held goes back.
        ended = true;
        const { target, probe } = answer;
        await report(state, { type: 'failure', target, kind: 'caller_abort', probe });
      }
      await reader?.cancel(reason).catch(() => undefined);
    },
  });
  return { ...result, stream };
}

/** Opens one attempt's stream and holds its parts: up to the first output (live) or all (buffered). */
async function open(
  model: LanguageModelV4,
  options: LanguageModelV4CallOptions,
  buffered: boolean,
  watch: AttemptWatch,
): Promise<OpenedStream> {
  try {
    const opened = await openWatched(model, options, buffered, watch);
    if (opened.reader === undefined) watch.stop();
    return opened;
  } catch (error) {
    watch.stop();
    throw watch.explain(error);
  }
}

async function openWatched(
  model: LanguageModelV4,
  options: LanguageModelV4CallOptions,
  buffered: boolean,
  watch: AttemptWatch,
): Promise<OpenedStream> {
  const result = await model.doStream({ ...options, abortSignal: watch.signal });
  const reader = result.stream.getReader();
  const held: Part[] = [];
  let output = false;
  for (;;) {
    const next = await (output ? watch.reading(reader.read()) : reader.read());
    if (next.done) {
      throw new IncompleteStreamError({
        message: 'The model stream ended without a finish part.',
      });
    }
    const part = next.value;
    if (part.type === 'error') {
      reader.cancel().catch(() => undefined);
      throw part.error;
    }
    if (part.type === 'finish') {
      const cut = cutError(part);
      if (cut !== undefined) throw cut;
      held.push(part);
      return { result, held, reader: undefined, watch };
    }
    held.push(part);
    if (output || PREAMBLE.has(part.type)) continue;
    output = true;
    watch.firstPart();
    if (!buffered) return { result, held, reader, watch };
  }
}

/**
 * The answering model's id reaches the caller even when its stream sends no `response-metadata`;
 * one it does send comes later and wins.
 */
function withModelId(held: Part[], model: LanguageModelV4): Part[] {
  const metadata: Part = { type: 'response-metadata', modelId: model.modelId };
  const first = held[0];
  return first?.type === 'stream-start' ? [first, metadata, ...held.slice(1)] : [metadata, ...held];
}

/**
 * The answering attempt failed after parts reached the caller (live mode): a stop errors the
 * stream; anything else is told to observers and health and ends the stream with an error part.
 */
async function endLive(
  state: CallState,
  answer: Answer<OpenedStream>,
  error: unknown,
  controller: ReadableStreamDefaultController<Part>,
): Promise<void> {
  answer.value.watch.stop();
  const failed = { error, target: answer.target, attempt: answer.attempt, probe: answer.probe };
  const { classification } = await recordFailure(state, failed, true);
  const record = answer.record;
  record.outcome = 'error';
  record.kind = classification.kind;
  if (classification.status !== undefined) record.status = classification.status;
  record.decision = 'final';
  emit(state, {
    type: 'decision',
    label: 'final',
    reason: classification.kind,
    from: answer.target,
  });
  if (classification.kind === 'caller_abort') {
    controller.error(state.signal?.reason ?? error);
    return;
  }
  controller.enqueue({
    type: 'error',
    error: new KeelModelError({
      message: `The answering model failed after its first part (${classification.kind}); live streams are not retried once output has reached the caller.`,
      kind: classification.kind,
      cause: error,
      attempts: state.attempts,
    }),
  });
  controller.close();
}
