import { classifyError } from '@keel/error-classification';
import type { CompactionProvider } from './compaction-provider';
import { CompactionTimeoutError } from './compaction-timeout-error';
import type { ProduceOutcome, Producer } from './producer';
import { buildSummaryInstructions } from './summary-instructions';

export interface ProviderProducerOptions {
  /** Longest time one `summarize` call may take; default 120 000 ms. */
  timeoutMs?: number;
}

/**
 * Internal: runs one third-party provider. Any failure, timeout, disconnect or empty output
 * becomes a failed outcome (the compactor moves on); only a caller abort rejects. A provider
 * that ignores its signal is abandoned, not awaited, and its late rejection is swallowed.
 */
export function createProviderProducer(
  provider: CompactionProvider,
  options: ProviderProducerOptions = {},
): Producer {
  const timeoutMs = options.timeoutMs ?? 120_000;
  return {
    id: provider.id,
    async produce(request): Promise<ProduceOutcome> {
      const outer = request.signal;
      outer.throwIfAborted();
      const controller = new AbortController();
      const onAbort = (): void => controller.abort(outer.reason);
      outer.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(
        () =>
          controller.abort(new CompactionTimeoutError(`provider timed out after ${timeoutMs} ms`)),
        timeoutMs,
      );
      const instructions = buildSummaryInstructions({
        budgetTokens: request.budgetTokens,
        requiredIdentifiers: request.requiredIdentifiers,
        requiredSections: request.requiredSections,
        ...(request.focus === undefined ? {} : { focus: request.focus }),
        ...(request.correction === undefined ? {} : { correction: request.correction.problems }),
      });
      const aborted = new Promise<never>((_, reject) => {
        const fail = (): void => reject(controller.signal.reason);
        if (controller.signal.aborted) fail();
        else controller.signal.addEventListener('abort', fail, { once: true });
      });
      try {
        const call = Promise.resolve().then(() =>
          provider.summarize({
            entries: request.compacted,
            previousSummary: request.previousSummary,
            instructions,
            signal: controller.signal,
            budgetTokens: request.budgetTokens,
            requiredSections: request.requiredSections,
            requiredIdentifiers: request.requiredIdentifiers,
          }),
        );
        call.catch(() => undefined);
        aborted.catch(() => undefined);
        const result: unknown = await Promise.race([call, aborted]);
        const summary =
          typeof result === 'object' && result !== null && 'summary' in result
            ? (result as { summary: unknown }).summary
            : undefined;
        if (typeof summary !== 'string' || summary.trim().length === 0) {
          return {
            ok: false,
            calls: 1,
            attempts: [{ producerId: provider.id, attempt: 1, reason: 'empty output' }],
          };
        }
        return { ok: true, summary: summary.trim(), calls: 1 };
      } catch (error) {
        if (outer.aborted) throw outer.reason;
        const classification = classifyError(error, { signal: outer });
        return {
          ok: false,
          calls: 1,
          attempts: [
            {
              producerId: provider.id,
              attempt: 1,
              reason: `${classification.kind}: ${classification.message ?? 'provider failed'}`,
              kind: classification.kind,
            },
          ],
        };
      } finally {
        clearTimeout(timer);
        outer.removeEventListener('abort', onAbort);
        // release whatever the provider is still doing
        if (!controller.signal.aborted)
          controller.abort(new Error('compaction provider call finished'));
      }
    },
  };
}
