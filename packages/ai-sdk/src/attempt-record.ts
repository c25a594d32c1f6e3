/**
 * One attempt of a call as the caller may read it afterwards (provider metadata `keel.attempts`,
 * `KeelModelError.attempts`): JSON only, so it travels inside the AI SDK's provider metadata.
 */
import type { ErrorKind } from '@keel/spec';
import type { KeelDecisionLabel } from './keel-model-options';

export interface AttemptRecord {
  /** `providerId/model#profileId`. */
  target: string;
  /** `ok`: it answered; `error`: it failed; `skipped`: health held it back, nothing was sent. */
  outcome: 'ok' | 'error' | 'skipped';
  kind?: ErrorKind | 'breaker-open' | 'probe-in-flight' | 'profile-cooling';
  status?: number;
  retryAfterMs?: number;
  /** What was decided after it: explains where the next attempt went. */
  decision?: KeelDecisionLabel;
  /** The wait before the next attempt, when the decision was a wait or a retry. */
  delayMs?: number;
}
