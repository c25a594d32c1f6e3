import { randomUUID } from 'node:crypto';
import { classifyError } from '@keel/error-classification';
import type { ModelCallOptions, ModelCapabilities, ModelEvent, ModelRequest } from '@keel/spec';
import { type AttemptWatchdog, createAttemptWatchdog } from './attempt-watchdog';
import { callHook } from './call-hook';
import { finalError } from './final-error';
import { redactSecret } from './redact-secret';
import { sanitizeUrl } from './sanitize-url';
import type { SdkTransportOptionsBase } from './transport-options';
import type { RequestInfo, Transport, TransportApi, TransportHooks } from './types';

/** Per-transport defaults of the per-call options. */
export interface CallDefaults {
  maxRetries?: number | undefined;
  timeoutMs?: number | undefined;
  firstTokenTimeoutMs?: number | undefined;
  stallTimeoutMs?: number | undefined;
}

/** SDK-backed APIs return tool calls for the caller to run and keep no state between calls. */
const SDK_CAPABILITIES: ModelCapabilities = Object.freeze({
  runsOwnTools: false,
  bindsSessions: false,
});

/** The SDK's default, used when neither the transport nor the call sets `maxRetries`. */
export const DEFAULT_MAX_RETRIES = 2;

export interface OpenStreamContext {
  model: string;
  /** Forward to the SDK as the request's `signal`. */
  signal: AbortSignal;
  /** Forward to the SDK as the request's `maxRetries`. */
  maxRetries: number;
  /** The whole attempt's timeout (the transport's own clock enforces it), when there is one. */
  timeoutMs: number | undefined;
}

export interface OpenedStream<Chunk> {
  /** HTTP status of the streaming response. */
  status: number | undefined;
  chunks: AsyncIterable<Chunk>;
}

/** What one SDK-backed API contributes; the rest (clocks, hooks, errors) is shared. */
export interface SdkTransportSpec<Chunk> {
  api: Exclude<TransportApi, 'claude-cli'>;
  provider: string;
  model: string;
  /** Sanitized base URL for hooks. */
  url: string;
  /**
   * The API key in use, only to redact it from errors; read when a call fails, so a key the SDK
   * took from its environment variable (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`) is covered too.
   */
  secret(): string | undefined;
  hooks: TransportHooks | undefined;
  defaults: CallDefaults;
  open(request: ModelRequest, context: OpenStreamContext): Promise<OpenedStream<Chunk>>;
  /**
   * One non-streamed call, its answer read as the chunks a stream of it would have sent (so
   * `decode` reads both alike). Used for a request with `delivery: 'whole'` when present.
   */
  openWhole?(request: ModelRequest, context: OpenStreamContext): Promise<OpenedStream<Chunk>>;
  decode(chunks: AsyncIterable<Chunk>): AsyncIterable<ModelEvent>;
  /**
   * Whether a chunk carries model output (text, tool-call arguments, the end), so the
   * first-token clock stops at it even before `decode` can produce an event (a tool call is one
   * event, produced only once its arguments are complete). Preambles (`message_start`, `ping`,
   * `response.created`, a role-only chunk) are not output.
   */
  isOutput(chunk: Chunk): boolean;
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? status : undefined;
}

/** A client's key as the SDKs expose it. */
interface ClientWithKey {
  readonly apiKey?: string | null;
}

/** What every SDK-backed API derives the same way from its options. */
export function sdkSpecBase(
  options: SdkTransportOptionsBase & { client?: ClientWithKey | undefined },
  target: {
    vendor: string;
    baseUrl: string;
    /** The client calls go through, once it is loaded or built. */
    client: () => ClientWithKey | undefined;
  },
): Pick<SdkTransportSpec<unknown>, 'provider' | 'model' | 'url' | 'secret' | 'hooks' | 'defaults'> {
  const url = sanitizeUrl(target.baseUrl);
  return {
    provider: options.provider ?? target.vendor,
    model: options.model,
    url:
      options.apiKey === undefined || options.apiKey.length < 4
        ? url
        : url.split(options.apiKey).join('[redacted]'),
    secret: () => options.apiKey ?? target.client()?.apiKey ?? options.client?.apiKey ?? undefined,
    hooks: options.hooks,
    defaults: options,
  };
}

/** Feeds the stall clock: armed while waiting for a chunk, stopped when one arrives. */
async function* watchChunks<Chunk>(
  source: AsyncIterable<Chunk>,
  watchdog: AttemptWatchdog,
  isOutput: (chunk: Chunk) => boolean,
): AsyncGenerator<Chunk> {
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    while (true) {
      watchdog.waitForChunk();
      const next = await iterator.next();
      watchdog.chunkReceived();
      if (next.done === true) {
        finished = true;
        return;
      }
      if (isOutput(next.value)) watchdog.firstEvent();
      yield next.value;
    }
  } finally {
    watchdog.chunkReceived();
    if (!finished) await iterator.return?.();
  }
}

/** Builds a `Transport` around one SDK call: clocks, retries, abort, hooks and error hygiene. */
export function createSdkTransport<Chunk>(spec: SdkTransportSpec<Chunk>): Transport {
  async function* stream(
    request: ModelRequest,
    options: ModelCallOptions = {},
  ): AsyncGenerator<ModelEvent> {
    const info: RequestInfo = {
      provider: spec.provider,
      api: spec.api,
      model: request.model ?? spec.model,
      url: spec.url,
      attemptId: randomUUID(),
    };
    // A whole answer has no first token or gap to time: only the whole call is.
    const open = request.delivery === 'whole' ? (spec.openWhole ?? spec.open) : spec.open;
    const streamed = open === spec.open;
    const timeoutMs = options.timeoutMs ?? spec.defaults.timeoutMs;
    const watchdog = createAttemptWatchdog({
      signal: options.signal,
      timeoutMs,
      ...(streamed
        ? {
            firstTokenTimeoutMs: options.firstTokenTimeoutMs ?? spec.defaults.firstTokenTimeoutMs,
            stallTimeoutMs: options.stallTimeoutMs ?? spec.defaults.stallTimeoutMs,
          }
        : {}),
    });
    const started = performance.now();
    const elapsedMs = () => Math.round(performance.now() - started);
    let status: number | undefined;
    let completed = false;
    callHook(spec.hooks?.onRequestStart, () => ({ ...info }));
    try {
      const opened = await open(request, {
        model: info.model,
        signal: watchdog.signal,
        maxRetries: options.maxRetries ?? spec.defaults.maxRetries ?? DEFAULT_MAX_RETRIES,
        timeoutMs,
      });
      status = opened.status;
      // A whole answer is already read: no chunk to wait for, no clock to feed.
      const chunks = streamed ? watchChunks(opened.chunks, watchdog, spec.isOutput) : opened.chunks;
      let first = true;
      for await (const event of spec.decode(chunks)) {
        if (first) {
          watchdog.firstEvent();
          first = false;
        }
        yield event;
      }
      completed = true;
      callHook(spec.hooks?.onResponse, () => ({ ...info, status, elapsedMs: elapsedMs() }));
    } catch (error) {
      const thrown = redactSecret(
        finalError(error, { signal: options.signal, timeout: watchdog.timeout }),
        spec.secret(),
      );
      callHook(spec.hooks?.onRequestError, () => ({
        ...info,
        status: statusOf(thrown) ?? status,
        elapsedMs: elapsedMs(),
        errorKind: classifyError(thrown, { signal: options.signal }).kind,
      }));
      completed = true;
      throw thrown;
    } finally {
      if (!completed) watchdog.abort();
      watchdog.dispose();
    }
  }

  return {
    specificationVersion: 'v1',
    api: spec.api,
    capabilities: SDK_CAPABILITIES,
    provider: spec.provider,
    stream,
  };
}
