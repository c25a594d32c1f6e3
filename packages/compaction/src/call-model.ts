import { classifyError } from '@keel/error-classification';
import type {
  ErrorKind,
  FinishReason,
  ModelEvent,
  ModelPort,
  ModelRequest,
  Usage,
} from '@keel/spec';
import { CompactionTimeoutError } from './compaction-timeout-error';
import { decideChunkRetry } from './retry-decision';

/** Default of `CallModelOptions.timeoutMs`. */
export const DEFAULT_MODEL_TIMEOUT_MS = 300_000;

export interface CallModelOptions {
  model: Pick<ModelPort, 'stream'>;
  /** Longest time the call (request and whole stream) may take. */
  timeoutMs: number;
  /** The caller's signal: its abort rethrows its reason at once. */
  signal: AbortSignal;
  /** Receives each `usage` event of the stream (a throw is ignored). */
  onUsage?: ((usage: Usage) => void) | undefined;
}

/** How one model call ended, unless the caller aborted (then `callModel` rejects). */
export type CallResult =
  | { ok: true; text: string; finish: FinishReason }
  | {
      ok: false;
      /** Log-safe: `<kind>: <message>`. */
      reason: string;
      kind: ErrorKind;
      /** Whether the same call may be tried again after a backoff. */
      retry: boolean;
      retryAfterMs?: number;
    };

/** What the summarizer keeps of a stream: the text, how it finished, a refusal. */
interface StreamState {
  text: string;
  finish: FinishReason | undefined;
  refusal: string | undefined;
}

function take(state: StreamState, event: ModelEvent): void {
  switch (event.type) {
    case 'text-delta':
      state.text += event.text;
      return;
    case 'refusal':
      state.refusal = (state.refusal ?? '') + event.text;
      return;
    case 'finish':
      state.finish = event.reason;
      return;
    case 'tool-call':
    case 'tool-result':
    case 'usage':
    case 'binding-invalidated':
    case 'session-bound':
      return;
    default:
      // an event type newer than this code is ignored
      event satisfies never;
  }
}

/** Hands a `usage` event's fields to `onUsage`; a listener that throws never fails the call. */
function passOn(event: Extract<ModelEvent, { type: 'usage' }>, onUsage?: (usage: Usage) => void) {
  if (onUsage === undefined) return;
  const { type: _type, ...usage } = event;
  try {
    onUsage(usage);
  } catch {
    // an observer never breaks a compaction
  }
}

function failed(kind: ErrorKind, message: string, retryAfterMs?: number): CallResult {
  return {
    ok: false,
    kind,
    reason: `${kind}: ${message}`,
    retry: decideChunkRetry(kind) === 'retry',
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}

/**
 * Internal: one model call of the built-in summarizer, bounded by `timeoutMs`. A port that
 * ignores its signal is abandoned, not awaited: every wait also ends on abort. Rejects only with
 * the caller's abort reason (or an error whose kind is `caller_abort`).
 */
export async function callModel(
  request: ModelRequest,
  options: CallModelOptions,
): Promise<CallResult> {
  const { signal, timeoutMs } = options;
  // the call's own signal: aborted by the caller's signal or by the call's deadline
  const call = new AbortController();
  const onAbort = (): void => call.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => call.abort(new CompactionTimeoutError(`model call timed out after ${timeoutMs} ms`)),
    timeoutMs,
  );
  const timedOut = (): boolean =>
    !signal.aborted && CompactionTimeoutError.isInstance(call.signal.reason);
  const aborted = new Promise<never>((_, reject) => {
    call.signal.addEventListener('abort', () => reject(call.signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  let iterator: AsyncIterator<ModelEvent> | undefined;
  const state: StreamState = { text: '', finish: undefined, refusal: undefined };
  try {
    iterator = options.model.stream(request, { signal: call.signal })[Symbol.asyncIterator]();
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done === true) break;
      if (next.value.type === 'usage') passOn(next.value, options.onUsage);
      take(state, next.value);
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (!timedOut()) {
      const classification = classifyError(error, { signal });
      if (decideChunkRetry(classification.kind) === 'abort') throw error;
      return failed(
        classification.kind,
        classification.message ?? 'model call failed',
        classification.retryAfterMs,
      );
    }
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    if (call.signal.aborted) iterator?.return?.().catch(() => undefined);
  }
  if (signal.aborted) throw signal.reason;
  if (timedOut()) return failed('timeout', `model call timed out after ${timeoutMs} ms`);
  if (state.refusal !== undefined || state.finish === 'content-filter') {
    return failed('content_policy', 'output filtered or refused');
  }
  if (state.finish === undefined) return failed('connection', 'stream ended without finish');
  return { ok: true, text: state.text.trim(), finish: state.finish };
}
