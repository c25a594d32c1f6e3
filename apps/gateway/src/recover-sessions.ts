import type { Orchestrator } from '@keel/orchestrator';
import type { SessionStorage } from '@keel/spec';
import type { FastifyBaseLogger } from 'fastify';

/**
 * After a crash: answers every user message that no turn answered, session by session (a few at
 * a time). A client retrying with its `clientMessageId` meanwhile joins that answer.
 */
export async function recoverSessions(
  storage: SessionStorage,
  orchestrator: Orchestrator,
  logger: FastifyBaseLogger,
  options: { concurrency?: number; signal?: AbortSignal; minAgeMs?: number } = {},
): Promise<{ sessions: number; answered: number }> {
  const ids = await storage.list(options.signal === undefined ? {} : { signal: options.signal });
  let next = 0;
  let answered = 0;
  const worker = async () => {
    while (next < ids.length && options.signal?.aborted !== true) {
      const sessionId = ids[next++] as string;
      try {
        const outcomes = await orchestrator.recover(sessionId, {
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          ...(options.minAgeMs === undefined ? {} : { minAgeMs: options.minAgeMs }),
        });
        answered += outcomes.length;
        if (outcomes.length > 0)
          logger.info({ sessionId, answered: outcomes.length }, 'recovered unanswered messages');
      } catch (error) {
        logger.warn(
          { sessionId, err: { type: (error as Error).name } },
          'could not recover a session',
        );
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  return { sessions: ids.length, answered };
}
