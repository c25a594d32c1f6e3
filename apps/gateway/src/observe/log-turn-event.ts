import type { TurnEvent } from '@keel/spec';
import type { FastifyBaseLogger } from 'fastify';

/**
 * Logs a turn's story with its turn id on every line: starts, attempt errors (kind, status and
 * the classifier's sanitized message — never user text, never a key), decisions and ends.
 */
export function logTurnEvent(logger: FastifyBaseLogger, event: TurnEvent): void {
  const base = { sessionId: event.sessionId, turnId: event.turnId };
  switch (event.type) {
    case 'turn-start':
      logger.info({ ...base, messageId: event.messageId }, 'turn started');
      return;
    case 'attempt-error':
      logger.warn(
        {
          ...base,
          attempt: event.attempt,
          provider: event.target.providerId,
          profile: event.target.profileId,
          model: event.target.model,
          kind: event.kind,
          status: event.status,
          retryAfterMs: event.retryAfterMs,
          detail: event.message,
        },
        'attempt failed',
      );
      return;
    case 'decision':
      logger.info(
        {
          ...base,
          label: event.label,
          reason: event.reason,
          from: event.from,
          to: event.to,
          delayMs: event.delayMs,
        },
        'decision',
      );
      return;
    case 'health':
      logger.info({ ...base, health: event.event }, 'provider health changed');
      return;
    case 'turn-end':
      logger.info(
        {
          ...base,
          outcome: event.outcome.kind,
          model: event.outcome.model,
          errorKind: event.outcome.errorKind,
          attempts: event.outcome.attempts.length,
          requests: event.outcome.attempts.filter((attempt) => attempt.requestSent).length,
        },
        'turn ended',
      );
      return;
    default:
      return;
  }
}
