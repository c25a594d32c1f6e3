import { classifyError } from '@keel/error-classification';
import type { BackoffOptions } from './backoff';
import { computeBackoffDelay, sleep } from './backoff';
import type { CompactionAttempt } from './compaction-error';
import { CompactionTimeoutError } from './compaction-timeout-error';
import type {
  CompactionModelEvent,
  CompactionModelPort,
  CompactionModelRequest,
} from './model-port';
import type { ProduceOutcome, ProduceRequest, Producer } from './producer';
import { renderMessages } from './render-messages';
import { decideChunkRetry } from './retry-decision';
import { buildSummaryInstructions } from './summary-instructions';

/** Producer id of the built-in LLM summarizer. */
export const BUILTIN_PRODUCER_ID = 'builtin:llm';

export interface ModelSummarizerOptions extends BackoffOptions {
  model: CompactionModelPort;
  /** Model name for the summary calls; default: the port's configured model. */
  modelName?: string;
  /** Calls per chunk, first try included; default 3. */
  maxAttemptsPerChunk?: number;
  /**
   * Longest time one model call (request and whole stream) may take; default 300 000 ms. Past it
   * the call is aborted and counts as a `timeout`: not retried in place, the producer fails.
   */
  modelTimeoutMs?: number;
}

/** Default of `ModelSummarizerOptions.modelTimeoutMs`. */
export const DEFAULT_MODEL_TIMEOUT_MS = 300_000;

const SYSTEM_PROMPT =
  'You maintain a rolling, structured summary of an agent conversation. You never invent facts, never answer the conversation, and reply with the summary only.';

type CallResult =
  | { ok: true; text: string }
  | { ok: false; reason: string; kind: string; retry: boolean; retryAfterMs?: number };

async function callModel(
  options: ModelSummarizerOptions,
  request: CompactionModelRequest,
  signal: AbortSignal,
): Promise<CallResult> {
  const timeoutMs = options.modelTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  // the call's own signal: aborted by the caller's signal or by the call's deadline
  const call = new AbortController();
  const onAbort = (): void => call.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => call.abort(new CompactionTimeoutError(`model call timed out after ${timeoutMs} ms`)),
    timeoutMs,
  );
  const timedOut = (): boolean =>
    !signal.aborted && call.signal.reason instanceof CompactionTimeoutError;
  // a port that ignores its signal is abandoned, not awaited: every wait also ends on abort
  const aborted = new Promise<never>((_, reject) => {
    call.signal.addEventListener('abort', () => reject(call.signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  let iterator: AsyncIterator<CompactionModelEvent> | undefined;
  let text = '';
  let finish: string | undefined;
  try {
    iterator = options.model.stream(request, { signal: call.signal })[Symbol.asyncIterator]();
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done === true) break;
      const event = next.value;
      if (event.type === 'text-delta' && typeof event.text === 'string') text += event.text;
      else if (event.type === 'finish') finish = event.reason ?? 'other';
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (!timedOut()) {
      const classification = classifyError(error, { signal });
      const decision = decideChunkRetry(classification.kind);
      if (decision === 'abort') throw error;
      return {
        ok: false,
        kind: classification.kind,
        reason: `${classification.kind}: ${classification.message ?? 'model call failed'}`,
        retry: decision === 'retry',
        ...(classification.retryAfterMs === undefined
          ? {}
          : { retryAfterMs: classification.retryAfterMs }),
      };
    }
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    if (call.signal.aborted) iterator?.return?.().catch(() => undefined);
  }
  if (signal.aborted) throw signal.reason;
  if (timedOut()) {
    return {
      ok: false,
      kind: 'timeout',
      reason: `timeout: model call timed out after ${timeoutMs} ms`,
      retry: decideChunkRetry('timeout') === 'retry',
    };
  }
  if (finish === 'content-filter') {
    return {
      ok: false,
      kind: 'content_policy',
      reason: 'content_policy: output filtered',
      retry: false,
    };
  }
  if (finish === undefined) {
    return {
      ok: false,
      kind: 'connection',
      reason: 'connection: stream ended without finish',
      retry: true,
    };
  }
  return { ok: true, text: text.trim() };
}

/** Internal: the built-in rolling summarizer over a model port. */
export function createModelSummarizer(options: ModelSummarizerOptions): Producer {
  const maxAttempts = Math.max(1, options.maxAttemptsPerChunk ?? 3);

  async function callWithRetry(
    request: ProduceRequest,
    prompt: string,
    chunk: number,
    state: { calls: number; attempts: CompactionAttempt[] },
  ): Promise<{ ok: true; text: string } | { ok: false }> {
    const modelRequest: CompactionModelRequest = {
      system: SYSTEM_PROMPT,
      messages: [{ role: 'user', content: prompt }],
      maxTokens: request.budgetTokens,
      temperature: 0,
      ...(options.modelName === undefined ? {} : { model: options.modelName }),
    };
    for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
      state.calls += 1;
      const result = await callModel(options, modelRequest, request.signal);
      if (result.ok) return result;
      state.attempts.push({
        producerId: BUILTIN_PRODUCER_ID,
        attempt: state.calls,
        reason:
          chunk >= 0 ? `chunk ${chunk + 1}: ${result.reason}` : `correction: ${result.reason}`,
        kind: result.kind,
      });
      if (!result.retry || attempt === maxAttempts) return { ok: false };
      const delayMs = computeBackoffDelay(attempt, {
        ...options,
        ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }),
      });
      request.emit({
        type: 'compaction-retry',
        sessionId: request.sessionId,
        producerId: BUILTIN_PRODUCER_ID,
        chunk,
        attempt: attempt + 1,
        kind: result.kind,
        delayMs,
      });
      await sleep(delayMs, request.signal);
    }
    return { ok: false };
  }

  function instructionsFor(request: ProduceRequest, identifiers: readonly string[]): string {
    return buildSummaryInstructions({
      budgetTokens: request.budgetTokens,
      requiredIdentifiers: identifiers,
      requiredSections: request.requiredSections,
      ...(request.focus === undefined ? {} : { focus: request.focus }),
      ...(request.correction === undefined ? {} : { correction: request.correction.problems }),
    });
  }

  return {
    id: BUILTIN_PRODUCER_ID,
    async produce(request): Promise<ProduceOutcome> {
      const state = { calls: 0, attempts: [] as CompactionAttempt[] };
      if (request.correction !== undefined) {
        const prompt = [
          instructionsFor(request, request.requiredIdentifiers),
          `<rejected-summary>\n${request.correction.rejectedSummary}\n</rejected-summary>`,
          'Rewrite the rejected summary so that it meets every requirement above.',
        ].join('\n\n');
        const result = await callWithRetry(request, prompt, -1, state);
        return result.ok
          ? { ok: true, summary: result.text, calls: state.calls }
          : { ok: false, calls: state.calls, attempts: state.attempts };
      }
      let summary = request.previousSummary;
      const pending = new Set(request.requiredIdentifiers);
      const seen: string[] = [];
      const takeSeen = (text: string): void => {
        for (const id of pending) {
          if (text.includes(id)) {
            pending.delete(id);
            seen.push(id);
          }
        }
      };
      if (summary !== undefined) takeSeen(summary);
      const chunks = request.chunks.length > 0 ? request.chunks : [{ start: 0, end: 0 }];
      for (const [index, chunk] of chunks.entries()) {
        const text = renderMessages(
          request.compacted.slice(chunk.start, chunk.end),
          request.chunkMaxTokens,
        );
        takeSeen(text);
        const prompt = [
          instructionsFor(request, seen),
          summary === undefined
            ? 'There is no earlier summary.'
            : `<previous-summary>\n${summary}\n</previous-summary>`,
          `<conversation part="${index + 1} of ${chunks.length}">\n${text}\n</conversation>`,
          summary === undefined
            ? 'Write the summary of this conversation.'
            : 'Update the previous summary with this part of the conversation; keep what still holds.',
        ].join('\n\n');
        const result = await callWithRetry(request, prompt, index, state);
        if (!result.ok) return { ok: false, calls: state.calls, attempts: state.attempts };
        summary = result.text;
      }
      return { ok: true, summary: summary ?? '', calls: state.calls };
    },
  };
}
