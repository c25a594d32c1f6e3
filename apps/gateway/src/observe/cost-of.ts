// Cost in USD from reported tokens and configured prices, in one place, so that the answer,
// the metrics and any reader agree on what a turn cost.
import type { AttemptRecord, TurnOutcome, Usage } from '@keel/spec';
import type { Prices } from '../config/model-settings-schema';

/** Prices per `providerId/model`. */
export type PriceBook = ReadonlyMap<string, Prices>;

/**
 * What `usage` cost at `prices` (USD per million tokens). `inputTokens` includes the cached ones:
 * cache reads and writes are billed at their own prices (default the input price), the rest at
 * the input price.
 */
export function costOf(usage: Usage, prices: Prices): number {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - cacheRead - cacheWrite);
  const micro =
    uncached * prices.input +
    cacheRead * (prices.cacheRead ?? prices.input) +
    cacheWrite * (prices.cacheWrite ?? prices.input) +
    usage.outputTokens * prices.output;
  return micro / 1_000_000;
}

/** The price book of `models.settings`: only the models that have prices. */
export function priceBookOf(settings: Readonly<Record<string, { prices?: Prices }>>): PriceBook {
  const book = new Map<string, Prices>();
  for (const [model, { prices }] of Object.entries(settings)) {
    if (prices !== undefined) book.set(model, prices);
  }
  return book;
}

/** The cost of one attempt, when it reported usage and its model has prices. */
export function attemptCost(attempt: AttemptRecord, book: PriceBook): number | undefined {
  const prices = book.get(`${attempt.target.providerId}/${attempt.target.model}`);
  return attempt.usage === undefined || prices === undefined
    ? undefined
    : costOf(attempt.usage, prices);
}

/**
 * A turn's cost: every attempt that reported usage, added up — only when each of those models has
 * prices (a partial sum would understate it). Without per-attempt usage, the turn's usage at the
 * answering model's prices.
 */
export function turnCost(outcome: TurnOutcome, book: PriceBook): number | undefined {
  const used = outcome.attempts.filter((attempt) => attempt.usage !== undefined);
  if (used.length === 0) {
    // `model` is `providerId/model`: the one that answered.
    const prices = outcome.model === undefined ? undefined : book.get(outcome.model);
    return outcome.usage === undefined || prices === undefined
      ? undefined
      : costOf(outcome.usage, prices);
  }
  let total = 0;
  for (const attempt of used) {
    const cost = attemptCost(attempt, book);
    if (cost === undefined) return undefined;
    total += cost;
  }
  return total;
}
