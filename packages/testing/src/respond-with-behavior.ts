import { estimateTokens } from './default-mock-reply';
import { buildErrorResponse, requestIdHeader } from './error-response';
import type { MockApi, MockBehavior, MockToolCall, RecordedRequest } from './mock-provider-types';
import type { ResponseWriter } from './response-writer';
import { shapeAnswerFrames } from './shape-answer-frames';
import type { MockReply, StreamFrame, WireFormat } from './wire-format';
import { chunkText } from './wire-format';

/** What one behaviour needs to answer one request. */
export interface RespondOptions {
  api: MockApi;
  wire: WireFormat;
  writer: ResponseWriter;
  request: RecordedRequest;
  behavior: MockBehavior;
  requestId: string;
  /** The reply text when the behaviour gives none. */
  defaultText: string;
  /** Number of this request (used in response ids). */
  requestNumber: number;
  /** Next value of the provider's tool call id counter. */
  nextToolNumber: () => number;
}

const DEFAULT_CHUNK_SIZE = 8;

const idPrefixes: Record<MockApi, string> = {
  'anthropic-messages': 'msg_mock_',
  'openai-chat': 'chatcmpl-mock-',
  'openai-responses': 'resp_mock_',
};

function buildReply(
  options: RespondOptions,
  text: string,
  toolCalls: MockToolCall[] = [],
  behavior?: { usage?: MockReply['usage']; chunkSize?: number; refusal?: string },
): MockReply {
  const toolPrefix = options.api === 'anthropic-messages' ? 'toolu_mock_' : 'call_mock_';
  const resolved = toolCalls.map((call) => ({
    id: call.id ?? `${toolPrefix}${options.nextToolNumber()}`,
    name: call.name,
    input: call.input,
  }));
  const body = options.request.body as { tools?: unknown } | null;
  const usage = behavior?.usage ?? {
    inputTokens: estimateTokens([options.request.system, options.request.messages, body?.tools]),
    outputTokens: estimateTokens(
      text + resolved.map((call) => JSON.stringify(call.input)).join(''),
    ),
  };
  return {
    id: `${idPrefixes[options.api]}${options.requestNumber}`,
    model: options.request.model ?? 'mock-model',
    text,
    ...(behavior?.refusal === undefined ? {} : { refusal: behavior.refusal }),
    toolCalls: resolved,
    usage,
    chunkSize: behavior?.chunkSize ?? DEFAULT_CHUNK_SIZE,
    request: options.request,
  };
}

/** Text long enough to fill `chunks` chunks. */
function padText(text: string, chunks: number, chunkSize: number): string {
  const base = text.length > 0 ? text : 'mock';
  let padded = base;
  while (Math.ceil(padded.length / chunkSize) < chunks) padded += ` ${base}`;
  return padded;
}

/** The frames up to and including the `count`-th text frame (count 0: those before the first). */
function framesThroughText(frames: StreamFrame[], count: number): StreamFrame[] {
  const taken: StreamFrame[] = [];
  let seen = 0;
  for (const frame of frames) {
    if (frame.text && seen >= count) break;
    taken.push(frame);
    if (frame.text) {
      seen += 1;
      if (seen >= count) break;
    }
  }
  return taken;
}

function streamHeaders(options: RespondOptions): Record<string, string> {
  return {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...requestIdHeader(options.api, options.requestId),
  };
}

function jsonHeaders(options: RespondOptions): Record<string, string> {
  return {
    'content-type': 'application/json',
    ...requestIdHeader(options.api, options.requestId),
  };
}

async function writeFrames(
  writer: ResponseWriter,
  frames: StreamFrame[],
  delayMs = 0,
): Promise<boolean> {
  let first = true;
  for (const frame of frames) {
    if (!first && !(await writer.wait(delayMs))) return false;
    first = false;
    if (!(await writer.write(frame.data))) return false;
  }
  return true;
}

type EarlyStopBehavior = Extract<
  MockBehavior,
  { type: 'reset-after-chunks' | 'truncated-stream' | 'stall' }
>;

/** How an answer that stops early ends: a socket reset, a clean end, or silence. */
function earlyStopOf(behavior: EarlyStopBehavior): {
  ending: 'reset' | 'end' | 'silence';
  chunks: number | undefined;
  text: string | undefined;
} {
  switch (behavior.type) {
    case 'reset-after-chunks':
      return { ending: 'reset', chunks: behavior.chunks, text: behavior.text };
    case 'truncated-stream':
      return { ending: 'end', chunks: behavior.chunks, text: behavior.text };
    case 'stall':
      return { ending: 'silence', chunks: behavior.afterChunks ?? 0, text: undefined };
    default: {
      const unknown: never = behavior;
      throw new Error(`Not an early stop: ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * Streaming: headers, the frames through the `chunks`-th text delta (a stall with 0 chunks:
 * headers only), then the ending. Non-streaming: headers and half the JSON body (a stall: none).
 */
async function stopEarly(options: RespondOptions, behavior: EarlyStopBehavior): Promise<void> {
  const { writer, wire, request } = options;
  const { ending, chunks, text } = earlyStopOf(behavior);
  const base = text ?? options.defaultText;
  const count = chunks ?? chunkText(base, DEFAULT_CHUNK_SIZE).length;
  const reply = buildReply(options, padText(base, count, DEFAULT_CHUNK_SIZE));
  if (request.stream) {
    writer.head(200, streamHeaders(options));
    const silentAtOnce = ending === 'silence' && count === 0;
    const frames = silentAtOnce ? [] : framesThroughText(wire.stream(reply), count);
    if (!(await writeFrames(writer, frames))) return;
  } else {
    writer.head(200, jsonHeaders(options));
    if (ending === 'silence') return;
    const json = JSON.stringify(wire.body(reply));
    if (!(await writer.write(json.slice(0, Math.floor(json.length / 2))))) return;
  }
  if (ending === 'reset') writer.destroy();
  else if (ending === 'end') writer.end();
}

function statusForStreamError(errorType: string): number {
  if (errorType === 'overloaded_error') return 529;
  if (errorType === 'rate_limit_error') return 429;
  return 500;
}

/** Answer one request as its behaviour says. Resolves when the answer is done (or abandoned). */
export async function respondWithBehavior(options: RespondOptions): Promise<void> {
  const { behavior, writer, wire, request } = options;
  switch (behavior.type) {
    case 'ok': {
      const calls = behavior.toolCalls ?? [];
      const declined = behavior.refusal !== undefined;
      const text = behavior.text ?? (calls.length > 0 || declined ? '' : options.defaultText);
      const reply = buildReply(options, text, calls, {
        ...(behavior.usage ? { usage: behavior.usage } : {}),
        ...(declined ? { refusal: behavior.refusal } : {}),
        ...(behavior.chunkSize ? { chunkSize: behavior.chunkSize } : {}),
      });
      const firstDelayMs = behavior.firstChunkDelayMs ?? 0;
      if (request.stream) {
        writer.head(200, streamHeaders(options));
        if (!(await writer.wait(firstDelayMs))) return;
        const frames = shapeAnswerFrames(wire.stream(reply), behavior);
        if (await writeFrames(writer, frames, behavior.chunkDelayMs)) writer.end();
        return;
      }
      if (firstDelayMs > 0) writer.head(200, jsonHeaders(options));
      if (!(await writer.wait(firstDelayMs + (behavior.chunkDelayMs ?? 0)))) return;
      if (firstDelayMs === 0) writer.head(200, jsonHeaders(options));
      writer.end(JSON.stringify(wire.body(reply)));
      return;
    }
    case 'http-error': {
      const error = buildErrorResponse(options.api, behavior, options.requestId);
      writer.head(error.status, error.headers);
      writer.end(error.body);
      return;
    }
    case 'reset-before-headers': {
      writer.destroy();
      return;
    }
    case 'reset-after-chunks':
    case 'truncated-stream':
    case 'stall':
      await stopEarly(options, behavior);
      return;
    case 'stream-error': {
      const errorType = behavior.errorType ?? 'overloaded_error';
      const message =
        behavior.message ?? (errorType === 'overloaded_error' ? 'Overloaded' : 'Error');
      if (!request.stream) {
        const error = buildErrorResponse(
          options.api,
          { type: 'http-error', status: statusForStreamError(errorType), errorType, message },
          options.requestId,
        );
        writer.head(error.status, error.headers);
        writer.end(error.body);
        return;
      }
      const count = behavior.afterChunks ?? 0;
      const reply = buildReply(options, padText(options.defaultText, count, DEFAULT_CHUNK_SIZE));
      writer.head(200, streamHeaders(options));
      const frames = framesThroughText(wire.stream(reply), count);
      if (!(await writeFrames(writer, frames))) return;
      for (const frame of wire.streamError(reply, { type: errorType, message }, frames.length)) {
        if (!(await writer.write(frame))) return;
      }
      writer.end();
      return;
    }
    case 'hang':
      return;
    default: {
      const unknown: never = behavior;
      throw new Error(`Unknown mock behavior: ${JSON.stringify(unknown)}`);
    }
  }
}
