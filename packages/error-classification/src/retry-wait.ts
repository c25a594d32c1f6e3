import type { ErrorFacts } from './collect-error-facts';
import type { ErrorClassification } from './error-classification';
import { requestedWaitMs } from './parse-retry-after';

/** The longest wait a turn may sleep through before trying the same target again. */
export const MAX_RETRY_AFTER_MS = 60_000;
/** The longest cooldown reported: a provider asking for more is taken to mean "a day". */
export const MAX_COOLDOWN_MS = 86_400_000;

/** Google RPC `RetryInfo.retryDelay` (`"13s"`, `"0.5s"`) found in an error body, in ms. */
function retryDelayFromBody(facts: ErrorFacts): number | undefined {
  for (const node of facts.nodes) {
    if (typeof node !== 'object' || node === null) continue;
    const details = (node as { details?: unknown }).details;
    if (!Array.isArray(details)) continue;
    for (const detail of details) {
      const delay = (detail as { retryDelay?: unknown } | null)?.retryDelay;
      const match = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
      if (match?.[1]) return Math.round(Number(match[1]) * 1000);
    }
  }
  return undefined;
}

/** The wait the error asks for, however long: response headers first, then a Google body. */
export function findRequestedWait(facts: ErrorFacts): number | undefined {
  return requestedWaitMs(facts.headers, Date.now()) ?? retryDelayFromBody(facts);
}

/**
 * A wait as the classification reports it: within 0–60 s as `retryAfterMs` (a turn may sleep
 * through it), longer as `cooldownMs`, capped at 24 h (for a breaker or a profile cooldown).
 */
export function waitFields(
  ms: number | undefined,
): Pick<ErrorClassification, 'retryAfterMs' | 'cooldownMs'> {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return {};
  if (ms <= MAX_RETRY_AFTER_MS) return { retryAfterMs: Math.round(ms) };
  return { cooldownMs: Math.round(Math.min(ms, MAX_COOLDOWN_MS)) };
}
