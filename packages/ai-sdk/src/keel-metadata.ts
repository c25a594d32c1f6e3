/**
 * The answering model's provider metadata with Keel's story of the call added under `keel`:
 * who answered and every attempt with its decision.
 */
import type { SharedV4ProviderMetadata } from '@ai-sdk/provider';
import { targetKey } from './attempt-plan';
import type { CallState } from './call-runtime';
import type { Answer } from './run-failover';

export function withKeelMetadata(
  metadata: SharedV4ProviderMetadata | undefined,
  state: CallState,
  answer: Pick<Answer<unknown>, 'target'>,
): SharedV4ProviderMetadata {
  return {
    ...metadata,
    keel: {
      answeredBy: targetKey(answer.target),
      attempts: state.attempts.map((attempt) => ({ ...attempt })),
    },
  };
}
