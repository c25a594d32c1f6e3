// What a turn card says in one glance — which model it used, why it ended without trying, what it
// consumed — computed here from the turn's records so the browser view and its tests agree.
import type { AttemptRecord, TurnOutcome, Usage } from '@keel/spec';
import { formatDuration } from './format';

/**
 * The `providerId/model` to name for a turn: the one that answered, else the last one that was
 * sent a request. A target skipped without a request (breaker open, profile cooling) is never
 * named, even when an outcome written by an older orchestrator names it; `undefined` when no
 * request was sent at all. Without records, the outcome's own `model`.
 */
export function triedModel(
  model: string | undefined,
  attempts: readonly AttemptRecord[] | undefined,
): string | undefined {
  if (attempts === undefined || attempts.length === 0) return model;
  const sent = attempts.filter((attempt) => attempt.requestSent);
  const answered = sent.find((attempt) => attempt.outcome === 'ok') ?? sent.at(-1);
  return answered === undefined
    ? undefined
    : `${answered.target.providerId}/${answered.target.model}`;
}

/**
 * An `error` with a `retryAfterMs` is a turn that ended because every candidate was cooling
 * (breakers open, profiles cooling, budgets spent): the sentence that says so, with the wait.
 */
export function coolingNotice(
  kind: string | undefined,
  retryAfterMs: number | undefined,
): string | undefined {
  if (kind !== 'error' || retryAfterMs === undefined) return undefined;
  return `Every candidate was cooling (breaker open or profile cooling): nothing to try for ${formatDuration(retryAfterMs)} (retryAfterMs ${Math.round(retryAfterMs)}).`;
}

/** `1 234 in (1 000 cache read, 20 cache write) · 56 out · $0.0012`. */
export function usageText(usage: Usage, costUsd?: number): string {
  const cache = [
    usage.cacheReadTokens === undefined ? undefined : `${count(usage.cacheReadTokens)} cache read`,
    usage.cacheWriteTokens === undefined
      ? undefined
      : `${count(usage.cacheWriteTokens)} cache write`,
  ].filter((part) => part !== undefined);
  return [
    `${count(usage.inputTokens)} in${cache.length === 0 ? '' : ` (${cache.join(', ')})`}`,
    `${count(usage.outputTokens)} out`,
    ...(costUsd === undefined ? [] : [formatUsd(costUsd)]),
  ].join(' · ');
}

/** The turn's cost when the outcome carries one (the gateway adds it when models have prices). */
export function costOf(outcome: TurnOutcome | undefined): number | undefined {
  const cost = (outcome as { costUsd?: unknown } | undefined)?.costUsd;
  return typeof cost === 'number' && Number.isFinite(cost) ? cost : undefined;
}

/** `$1.25`, and below a cent up to six decimals (`$0.0012`); `<$0.000001` for less. */
export function formatUsd(value: number): string {
  if (value >= 0.01 || value === 0) return `$${value.toFixed(2)}`;
  const fine = value.toFixed(6).replace(/0+$/, '');
  return fine === '0.' ? '<$0.000001' : `$${fine}`;
}

function count(tokens: number): string {
  return tokens.toLocaleString('en-US');
}
