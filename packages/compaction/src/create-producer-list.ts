import type { CompactionAttempt, CompactionProvider, ModelPort } from '@keel/spec';
import type { BackoffOptions } from './backoff';
import type { CompactionRegistry } from './compaction-registry';
import type { CompactionUsage } from './compaction-usage';
import { createModelSummarizer } from './model-summarizer';
import type { Producer } from './producer';
import { createProviderProducer } from './provider-producer';

/** Built-in summarizer retries: calls per chunk (first try included; default 3) and backoff. */
export interface CompactionRetryOptions extends BackoffOptions {
  maxAttemptsPerChunk?: number;
}

export interface ProducerListOptions {
  model?: Pick<ModelPort, 'stream'>;
  modelName?: string;
  registry?: CompactionRegistry;
  providers?: ReadonlyArray<string | CompactionProvider>;
  retry?: CompactionRetryOptions;
  providerTimeoutMs?: number;
  modelTimeoutMs?: number;
  onUsage?: (usage: CompactionUsage) => void;
}

/**
 * Internal: the producers one compaction tries, in order: the configured providers (objects, or
 * ids looked up in the registry when the compaction starts), then the built-in summarizer when a
 * model is set. An id not registered is recorded as a failed attempt.
 */
export function createProducerList(
  options: ProducerListOptions,
): (attempts: CompactionAttempt[]) => Producer[] {
  const builtin =
    options.model === undefined
      ? undefined
      : createModelSummarizer({
          ...options.retry,
          model: options.model,
          ...(options.modelName === undefined ? {} : { modelName: options.modelName }),
          ...(options.modelTimeoutMs === undefined
            ? {}
            : { modelTimeoutMs: options.modelTimeoutMs }),
          ...(options.onUsage === undefined ? {} : { onUsage: options.onUsage }),
        });
  const timeout =
    options.providerTimeoutMs === undefined ? {} : { timeoutMs: options.providerTimeoutMs };
  return (attempts) => {
    const list: Producer[] = [];
    for (const item of options.providers ?? options.registry?.list() ?? []) {
      const provider = typeof item === 'string' ? options.registry?.get(item) : item;
      if (provider === undefined) {
        attempts.push({ producerId: String(item), attempt: 0, reason: 'provider not registered' });
      } else {
        list.push(createProviderProducer(provider, timeout));
      }
    }
    if (builtin !== undefined) list.push(builtin);
    if (list.length === 0) {
      attempts.push({
        producerId: 'none',
        attempt: 0,
        reason: 'no producer: configure model or providers',
      });
    }
    return list;
  };
}
