import { setTimeout as delay } from 'node:timers/promises';
import type { CompactionAttempt, ModelPort, ModelRequest, Usage } from '@keel/spec';
import type { BackoffOptions } from './backoff';
import { computeBackoffDelay } from './backoff';
import { callModel, DEFAULT_MODEL_TIMEOUT_MS } from './call-model';
import type { CompactionUsage } from './compaction-usage';
import type { ProduceOutcome, ProduceRequest, Producer } from './producer';
import { BUILTIN_PRODUCER_ID } from './producer-ids';
import { renderMessages } from './render-messages';
import { buildSummaryInstructions } from './summary-instructions';

export interface ModelSummarizerOptions extends BackoffOptions {
  model: Pick<ModelPort, 'stream'>;
  /** Model name for the summary calls; default: the port's configured model. */
  modelName?: string;
  /** Calls per chunk, first try included; default 3. */
  maxAttemptsPerChunk?: number;
  /**
   * Longest time one model call (request and whole stream) may take; default 300 000 ms. Past it
   * the call is aborted and counts as a `timeout`: not retried in place, the producer fails.
   */
  modelTimeoutMs?: number;
  /** Receives what each model call reported it used, with the session compacted. */
  onUsage?: (usage: CompactionUsage) => void;
}

const SYSTEM_PROMPT =
  'You maintain a rolling, structured summary of an agent conversation. You never invent facts, never answer the conversation, and reply with the summary only.';

/** The calls and failed tries of one `produce()`. */
interface ProduceState {
  calls: number;
  attempts: CompactionAttempt[];
}

/** Waits `ms`, waking on abort with the signal's own reason. */
async function backoff(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch (error) {
    signal.throwIfAborted();
    throw error;
  }
}

/** Internal: the built-in rolling summarizer over a model port. */
export function createModelSummarizer(options: ModelSummarizerOptions): Producer {
  const maxAttempts = Math.max(1, options.maxAttemptsPerChunk ?? 3);
  const timeoutMs = options.modelTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;

  /** One prompt, retried in place on transient failures. `chunk` is -1 for the correction. */
  async function callWithRetry(
    request: ProduceRequest,
    prompt: string,
    chunk: number,
    state: ProduceState,
  ): Promise<{ ok: true; text: string; cutOff: boolean } | { ok: false }> {
    const modelRequest: ModelRequest = {
      system: SYSTEM_PROMPT,
      messages: [{ role: 'user', content: prompt }],
      // room above the budget, so that a summary near it ends on its own rather than being cut
      maxTokens: request.budgetTokens + Math.ceil(request.budgetTokens / 4),
      temperature: 0,
      ...(options.modelName === undefined ? {} : { model: options.modelName }),
    };
    const signal = request.signal;
    const onUsage =
      options.onUsage === undefined
        ? undefined
        : (usage: Usage) => options.onUsage?.({ sessionId: request.sessionId, usage });
    for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
      state.calls += 1;
      const result = await callModel(modelRequest, {
        model: options.model,
        timeoutMs,
        signal,
        onUsage,
      });
      if (result.ok) return { ok: true, text: result.text, cutOff: result.finish === 'length' };
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
      await backoff(delayMs, signal);
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

  /** The corrective retry: one call that rewrites the rejected summary. */
  async function correct(
    request: ProduceRequest,
    correction: NonNullable<ProduceRequest['correction']>,
  ): Promise<ProduceOutcome> {
    const state: ProduceState = { calls: 0, attempts: [] };
    const prompt = [
      instructionsFor(request, request.requiredIdentifiers),
      `<rejected-summary>\n${correction.rejectedSummary}\n</rejected-summary>`,
      'Rewrite the rejected summary so that it meets every requirement above.',
    ].join('\n\n');
    const result = await callWithRetry(request, prompt, -1, state);
    return result.ok
      ? { ok: true, summary: result.text, calls: state.calls, cutOff: result.cutOff }
      : { ok: false, calls: state.calls, attempts: state.attempts };
  }

  /** The rolling summary: each chunk updates the summary so far. */
  async function summarize(request: ProduceRequest): Promise<ProduceOutcome> {
    const state: ProduceState = { calls: 0, attempts: [] };
    let summary = request.previousSummary;
    // identifiers are asked for once the summary so far or the chunk holds them
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
      if (result.cutOff && index < chunks.length - 1) {
        // a cut-off summary so far would be rolled forward as if it were whole
        state.attempts.push({
          producerId: BUILTIN_PRODUCER_ID,
          attempt: state.calls,
          reason: `chunk ${index + 1}: the summary was cut off at the token limit`,
        });
        return { ok: false, calls: state.calls, attempts: state.attempts };
      }
      if (result.cutOff) {
        return { ok: true, summary: result.text, calls: state.calls, cutOff: true };
      }
      summary = result.text;
    }
    return { ok: true, summary: summary ?? '', calls: state.calls };
  }

  return {
    id: BUILTIN_PRODUCER_ID,
    produce: (request) =>
      request.correction === undefined ? summarize(request) : correct(request, request.correction),
  };
}
