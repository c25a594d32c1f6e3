import type { AttemptRecord, Usage } from '@keel/spec';

/**
 * A turn's usage: every attempt's reported tokens added up (failed attempts that reported usage
 * included: they were paid for), cache counts only when some attempt reported them; `undefined`
 * when no attempt reported any.
 */
export function turnUsage(attempts: readonly AttemptRecord[]): Usage | undefined {
  let total: Usage | undefined;
  for (const { usage } of attempts) {
    if (usage === undefined) continue;
    total ??= { inputTokens: 0, outputTokens: 0 };
    total.inputTokens += usage.inputTokens;
    total.outputTokens += usage.outputTokens;
    if (usage.cacheReadTokens !== undefined)
      total.cacheReadTokens = (total.cacheReadTokens ?? 0) + usage.cacheReadTokens;
    if (usage.cacheWriteTokens !== undefined)
      total.cacheWriteTokens = (total.cacheWriteTokens ?? 0) + usage.cacheWriteTokens;
  }
  return total;
}
