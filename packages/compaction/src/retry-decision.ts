import type { ErrorKind } from '@keel/spec';

/**
 * What the built-in summarizer does after a failed model call, by error kind:
 * `abort` stop at once and write nothing; `retry` try the same chunk again after a backoff;
 * `next-producer` give up on this producer without retrying in place (non-abort timeouts);
 * `fail` give up on this producer.
 */
export type ChunkRetryDecision = 'abort' | 'retry' | 'next-producer' | 'fail';

export function decideChunkRetry(kind: ErrorKind): ChunkRetryDecision {
  switch (kind) {
    case 'caller_abort':
      return 'abort';
    case 'provider_abort':
    case 'connection':
    case 'rate_limit':
    case 'server_error':
      return 'retry';
    case 'timeout':
      return 'next-producer';
    case 'overloaded':
    case 'auth':
    case 'billing':
    case 'context_overflow':
    case 'invalid_request':
    case 'model_not_found':
    case 'content_policy':
    case 'session_takeover':
    case 'coordination':
    case 'storage':
    case 'unknown':
      return 'fail';
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}
