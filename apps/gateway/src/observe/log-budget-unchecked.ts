import { sanitizeForLog } from '@keel/error-classification';
import type { FastifyBaseLogger } from 'fastify';

/**
 * One warning per reservation a provider budget's ledger failed to answer (a database down, its
 * pool exhausted): the request goes unbudgeted (`keel_budget_unchecked_total` counts it), and the
 * line says why — the error's name, its code and its sanitized message.
 */
export function logBudgetUnchecked(logger: FastifyBaseLogger, key: string, error: unknown): void {
  const failure = error as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  logger.warn(
    {
      budget: key,
      err: {
        type: typeof failure?.name === 'string' ? failure.name : typeof error,
        ...(typeof failure?.code === 'string' ? { code: failure.code } : {}),
        ...(typeof failure?.message === 'string'
          ? { detail: sanitizeForLog(failure.message, { maxLength: 300 }) }
          : {}),
      },
    },
    'a provider budget could not be checked: the request went unbudgeted',
  );
}
