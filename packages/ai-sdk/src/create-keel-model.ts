/**
 * `createKeelModel`: several AI SDK language models behind one `LanguageModelV4`, so
 * `generateText`, `streamText`, `generateObject` and tool calls get Keel's failover unchanged.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { createProviderHealth } from '@keel/provider-health';
import type { CallRuntime, CallState } from './call-runtime';
import { emit, report } from './call-runtime';
import { buildChain } from './candidate-chain';
import { withKeelMetadata } from './keel-metadata';
import { KeelModelConfigError } from './keel-model-error';
import type { KeelModelOptions } from './keel-model-options';
import { runFailover } from './run-failover';
import { streamWithFailover } from './stream-with-failover';
import { watchAttempt } from './watch-attempt';

export function createKeelModel(options: KeelModelOptions): LanguageModelV4 {
  const chain = buildChain(options);
  const retry = options.retry ?? {};
  const settings = {
    maxRetries: count(retry.maxRetries, 'retry.maxRetries', 1),
    maxWaitMs: count(retry.maxWaitMs, 'retry.maxWaitMs', 10_000),
    maxWaits: count(retry.maxWaits, 'retry.maxWaits', 2),
    baseDelayMs: count(retry.baseDelayMs, 'retry.baseDelayMs', 500),
    maxDelayMs: count(retry.maxDelayMs, 'retry.maxDelayMs', 8_000),
    rateLimitCooldownMs: count(retry.rateLimitCooldownMs, 'retry.rateLimitCooldownMs', 30_000),
  };
  const runtime: CallRuntime = {
    chain,
    // The default health cools a key and opens a breaker by the same clock the calls wait by.
    health:
      options.health ??
      createProviderHealth({
        rateLimitCooldownMs: settings.rateLimitCooldownMs,
        longRetryAfterMs: settings.maxWaitMs,
      }),
    settings,
    streamMode: options.streamMode ?? 'live',
    timeouts: {
      ...(options.timeouts?.firstPartMs === undefined
        ? {}
        : { firstPartMs: count(options.timeouts.firstPartMs, 'timeouts.firstPartMs', 0) }),
      ...(options.timeouts?.stallMs === undefined
        ? {}
        : { stallMs: count(options.timeouts.stallMs, 'timeouts.stallMs', 0) }),
    },
    random: options.random ?? Math.random,
    onEvent: options.onEvent,
  };
  if (runtime.streamMode !== 'live' && runtime.streamMode !== 'buffered') {
    throw new KeelModelConfigError({
      message: `streamMode must be "live" or "buffered", not ${JSON.stringify(runtime.streamMode)}.`,
    });
  }
  const newCall = (signal: AbortSignal | undefined): CallState => ({
    runtime,
    signal,
    attempts: [],
    sent: 0,
  });

  return {
    specificationVersion: 'v4',
    provider: 'keel',
    modelId: chain.map((model) => model.key).join(','),
    // URLs the candidates would each read differently are downloaded by the AI SDK for all.
    supportedUrls: {},
    async doGenerate(callOptions) {
      const state = newCall(callOptions.abortSignal);
      const answer = await runFailover(state, async (model) => {
        const watch = watchAttempt(callOptions.abortSignal, runtime.timeouts);
        try {
          return await model.doGenerate({ ...callOptions, abortSignal: watch.signal });
        } catch (error) {
          throw watch.explain(error);
        } finally {
          watch.stop();
        }
      });
      emit(state, { type: 'attempt-end', attempt: answer.attempt, target: answer.target });
      await report(state, { type: 'success', target: answer.target, probe: answer.probe });
      const result = answer.value;
      return {
        ...result,
        response: { ...result.response, modelId: result.response?.modelId ?? answer.model.modelId },
        providerMetadata: withKeelMetadata(result.providerMetadata, state, answer),
      };
    },
    async doStream(callOptions) {
      return streamWithFailover(newCall(callOptions.abortSignal), callOptions);
    },
  };
}

function count(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) {
    throw new KeelModelConfigError({
      message: `${name} must be a finite number from 0, not ${value}.`,
    });
  }
  return value;
}
