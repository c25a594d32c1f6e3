import { sanitizeForLog } from '@keel/error-classification';
import type { CompactionEvent, TurnEvent } from '@keel/spec';
import type { FastifyBaseLogger } from 'fastify';

/**
 * Logs a turn's story with its turn id on every line: starts (with the client's message id,
 * sanitized), attempt errors (kind, status and the classifier's sanitized message — never user
 * text; keys are redacted by the logger), decisions, compactions and ends.
 */
export function logTurnEvent(logger: FastifyBaseLogger, event: TurnEvent): void {
  // Most events (text deltas, tool progress) are never logged, and at `warn` only a failed
  // attempt is: nothing is built for a line the logger would drop (issue 20).
  const level = levelOf(event);
  if (level === undefined || !enabledAt(logger, level)) return;
  const base = { sessionId: event.sessionId, turnId: event.turnId };
  switch (event.type) {
    case 'turn-start':
      logger.info(
        {
          ...base,
          messageId: event.messageId,
          ...(event.clientMessageId === undefined
            ? {}
            : { clientMessageId: sanitizeForLog(event.clientMessageId, { maxLength: 200 }) }),
        },
        'turn started',
      );
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
    case 'compaction':
      logCompaction(logger, base, event.event);
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

/** pino's own levels; a custom level name counts as enabled (the logger decides). */
const LEVELS: Readonly<Record<string, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Number.POSITIVE_INFINITY,
};

function enabledAt(logger: FastifyBaseLogger, level: 'info' | 'warn'): boolean {
  const threshold = LEVELS[logger.level];
  return threshold === undefined || threshold <= (LEVELS[level] as number);
}

/** The level an event's line is written at (as the switches below write it); none for the rest. */
function levelOf(event: TurnEvent): 'info' | 'warn' | undefined {
  switch (event.type) {
    case 'attempt-error':
      return 'warn';
    case 'turn-start':
    case 'decision':
    case 'health':
    case 'turn-end':
      return 'info';
    case 'compaction':
      if (event.event.type === 'compaction-fallback') return 'warn';
      return event.event.type === 'compaction-end' ? 'info' : undefined;
    default:
      return undefined;
  }
}

function logCompaction(
  logger: FastifyBaseLogger,
  base: { sessionId: string; turnId: string },
  event: CompactionEvent,
): void {
  switch (event.type) {
    case 'compaction-fallback':
      logger.warn(
        {
          ...base,
          producerId: event.producerId,
          nextProducerId: event.nextProducerId,
          detail: sanitizeForLog(event.reason),
        },
        'compaction producer failed',
      );
      return;
    case 'compaction-end':
      logger.info(
        {
          ...base,
          trigger: event.trigger,
          outcome: event.outcome,
          producerId: event.entry?.provenance.producerId,
          tokensBefore: event.entry?.provenance.tokensBefore,
          tokensAfter: event.entry?.provenance.tokensAfter,
          failedAttempts: event.attempts.length,
        },
        'compaction ended',
      );
      return;
    default:
      return;
  }
}
