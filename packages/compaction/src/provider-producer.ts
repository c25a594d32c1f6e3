import { classifyError } from '@keel/error-classification';
import type { CompactionAttempt, CompactionProvider } from '@keel/spec';
import { CompactionTimeoutError } from './compaction-timeout-error';
import type { ProduceOutcome, ProduceRequest, Producer } from './producer';
import { buildSummaryInstructions } from './summary-instructions';

export interface ProviderProducerOptions {
  /** Longest time one `summarize` call may take; default 120 000 ms. */
  timeoutMs?: number;
}

function failure(attempt: CompactionAttempt): ProduceOutcome {
  return { ok: false, calls: 1, attempts: [attempt] };
}

/** The summary a provider resolved with, if it is a non-blank string. */
function summaryOf(result: unknown): string | undefined {
  const summary =
    typeof result === 'object' && result !== null && 'summary' in result
      ? (result as { summary: unknown }).summary
      : undefined;
  return typeof summary === 'string' && summary.trim().length > 0 ? summary.trim() : undefined;
}

/**
 * Internal: runs one third-party provider. Any failure, timeout, disconnect, provider-side abort
 * or empty output becomes a failed outcome (the compactor moves on); only a caller abort rejects.
 * A provider that ignores its signal is abandoned, not awaited, and its late rejection is
 * swallowed.
 */
export function createProviderProducer(
  provider: CompactionProvider,
  options: ProviderProducerOptions = {},
): Producer {
  const timeoutMs = options.timeoutMs ?? 120_000;

  function call(request: ProduceRequest, signal: AbortSignal): Promise<unknown> {
    return Promise.resolve().then(() =>
      provider.summarize({
        entries: request.compacted,
        previousSummary: request.previousSummary,
        instructions: buildSummaryInstructions({
          budgetTokens: request.budgetTokens,
          requiredIdentifiers: request.requiredIdentifiers,
          requiredSections: request.requiredSections,
          ...(request.focus === undefined ? {} : { focus: request.focus }),
          ...(request.correction === undefined ? {} : { correction: request.correction.problems }),
        }),
        signal,
        budgetTokens: request.budgetTokens,
        requiredSections: request.requiredSections,
        requiredIdentifiers: request.requiredIdentifiers,
      }),
    );
  }

  return {
    id: provider.id,
    async produce(request): Promise<ProduceOutcome> {
      const outer = request.signal;
      outer.throwIfAborted();
      // the provider's own signal: aborted by the caller or by the provider timeout
      const controller = new AbortController();
      const onAbort = (): void => controller.abort(outer.reason);
      outer.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(
        () =>
          controller.abort(new CompactionTimeoutError(`provider timed out after ${timeoutMs} ms`)),
        timeoutMs,
      );
      const aborted = new Promise<never>((_, reject) => {
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), {
          once: true,
        });
      });
      aborted.catch(() => undefined);
      try {
        const pending = call(request, controller.signal);
        pending.catch(() => undefined);
        const summary = summaryOf(await Promise.race([pending, aborted]));
        if (summary === undefined) {
          return failure({ producerId: provider.id, attempt: 1, reason: 'empty output' });
        }
        return { ok: true, summary, calls: 1 };
      } catch (error) {
        if (outer.aborted) throw outer.reason;
        if (CompactionTimeoutError.isInstance(controller.signal.reason)) {
          return failure({
            producerId: provider.id,
            attempt: 1,
            reason: `timeout: provider timed out after ${timeoutMs} ms`,
            kind: 'timeout',
          });
        }
        // anything else, a provider-side AbortError included, moves on to the next producer
        const classification = classifyError(error, { signal: outer });
        return failure({
          producerId: provider.id,
          attempt: 1,
          reason: `${classification.kind}: ${classification.message ?? 'provider failed'}`,
          kind: classification.kind,
        });
      } finally {
        clearTimeout(timer);
        outer.removeEventListener('abort', onAbort);
        // release whatever the provider is still doing
        if (!controller.signal.aborted) {
          controller.abort(new Error('compaction provider call finished'));
        }
      }
    },
  };
}
