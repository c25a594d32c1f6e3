/**
 * @keel/testing's seeded chaos mode against the real `openai` and `@anthropic-ai/sdk` clients on
 * all three wire APIs, streaming (through the SDK stream helpers, which is where truncated
 * streams and in-stream errors surface) and not: @keel/error-classification must classify every
 * injected fault as the kind DESIGN.md's taxonomy gives it.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ErrorKind } from '@keel/error-classification';
import { classifyError } from '@keel/error-classification';
import {
  createMockProvider,
  type MockApi,
  type MockChaosFault,
  type MockChaosInjection,
  type MockProvider,
  type RecordedRequest,
} from '@keel/testing';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';

const APIS: readonly MockApi[] = ['anthropic-messages', 'openai-chat', 'openai-responses'];
const FAULTS: readonly MockChaosFault[] = [
  'reset-before-headers',
  'server-error',
  'overloaded',
  'rate-limited',
  'reset-after-chunks',
  'truncated-stream',
  'stream-error',
  'hang',
  'stall',
];
const RETRY_AFTER_SECONDS = 2;

let provider: MockProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

/** The kind each injected fault must classify as (a hang: the SDK's own timeout fired). */
function expectedKind(injection: MockChaosInjection, endedBy: 'sdk-timeout' | 'abort'): ErrorKind {
  switch (injection.fault) {
    case 'reset-before-headers':
    case 'reset-after-chunks':
    case 'truncated-stream':
      return 'connection';
    case 'server-error':
      return 'server_error';
    case 'overloaded':
      return 'overloaded';
    case 'rate-limited':
      return 'rate_limit';
    case 'stream-error': {
      const { behavior } = injection;
      const type = behavior.type === 'stream-error' ? behavior.errorType : undefined;
      return type === 'overloaded_error' ? 'overloaded' : 'server_error';
    }
    case 'hang':
      return endedBy === 'sdk-timeout' ? 'timeout' : 'provider_abort';
    case 'stall':
      // What the SDK throws when a stall timer (not the caller) aborted it; a transport wraps it
      // in its own `timeout` error.
      return 'provider_abort';
    default: {
      const unknown: never = injection.fault;
      throw new Error(`unexpected fault ${String(unknown)}`);
    }
  }
}

interface Outcome {
  api: MockApi;
  stream: boolean;
  record: RecordedRequest;
  /** What the call resolved with. */
  value: unknown;
  error: unknown;
}

/** One real SDK call, consumed to its final result (the SDK stream helpers when streaming). */
function sdkCall(
  mock: MockProvider,
  api: MockApi,
  stream: boolean,
  options: { signal: AbortSignal; timeout?: number },
): Promise<unknown> {
  const messages = [{ role: 'user' as const, content: 'hello' }];
  const request = {
    signal: options.signal,
    ...(options.timeout ? { timeout: options.timeout } : {}),
  };
  if (api === 'anthropic-messages') {
    const client = new Anthropic({ apiKey: 'k', baseURL: mock.anthropicBaseUrl, maxRetries: 0 });
    const body = { model: 'claude-chaos', max_tokens: 64, messages };
    if (!stream) return client.messages.create(body, request);
    return client.messages.stream(body, request).finalMessage();
  }
  const client = new OpenAI({ apiKey: 'k', baseURL: mock.openaiBaseUrl, maxRetries: 0 });
  if (api === 'openai-chat') {
    const body = { model: 'gpt-chaos', messages };
    if (!stream) return client.chat.completions.create(body, request);
    return client.chat.completions.stream(body, request).finalChatCompletion();
  }
  const body = { model: 'gpt-chaos', input: 'hello' };
  if (!stream) return client.responses.create(body, request);
  return client.responses.stream(body, request).finalResponse();
}

/**
 * Makes one call and, once its request reached the mock (event-driven), aborts it when the mock
 * hangs or stalls for good, as a client's first-token or stall timer would. With `timeout`, a
 * hang is left to the SDK's own request timeout instead.
 */
async function callOnce(
  mock: MockProvider,
  api: MockApi,
  stream: boolean,
  timeout?: number,
): Promise<Outcome> {
  const stallTimer = new AbortController();
  const count = mock.requests.length + 1;
  const call = sdkCall(mock, api, stream, {
    signal: stallTimer.signal,
    ...(timeout ? { timeout } : {}),
  }).then(
    (value) => ({ value, error: undefined }),
    (error: unknown) => ({ value: undefined, error }),
  );
  const record = (await mock.waitForRequests(count))[count - 1]!;
  const fault = record.chaos?.fault;
  if (fault === 'stall' || (fault === 'hang' && timeout === undefined)) stallTimer.abort();
  return { api, stream, record, ...(await call) };
}

function expectClassified(outcome: Outcome, endedBy: 'sdk-timeout' | 'abort'): void {
  const injection = outcome.record.chaos;
  if (injection === undefined) {
    expect(outcome.error).toBeUndefined();
    return;
  }
  if (
    injection.fault === 'truncated-stream' &&
    outcome.stream &&
    outcome.api === 'openai-responses'
  ) {
    // The Responses stream helper does not throw: it resolves with the last snapshot, a response
    // that never completed. (@keel/transport raises its IncompleteStreamError, kind connection.)
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toMatchObject({ status: 'in_progress' });
    return;
  }
  expect(outcome.error).toBeDefined();
  // The caller's own signal was never aborted: only the (emulated) stall timer was.
  const callerSignal = new AbortController().signal;
  const classification = classifyError(outcome.error, { signal: callerSignal });
  expect({ fault: injection.fault, kind: classification.kind }).toEqual({
    fault: injection.fault,
    kind: expectedKind(injection, endedBy),
  });
  if (injection.fault === 'rate-limited') {
    expect(classification.retryAfterMs).toBe(RETRY_AFTER_SECONDS * 1000);
  }
}

describe.each(APIS)('chaos faults on %s are classified as their kind', (api) => {
  describe.each([true, false])('stream: %s', (stream) => {
    it.each(FAULTS)('%s (forced)', async (fault) => {
      provider = await createMockProvider({
        chaos: {
          seed: `${api}/${stream}/${fault}`,
          rates: { [fault]: 1 },
          retryAfterSeconds: RETRY_AFTER_SECONDS,
        },
      });
      // A forced hang never answers, so the SDK's request timeout always fires: no race.
      const outcome = await callOnce(provider, api, stream, fault === 'hang' ? 200 : undefined);
      expect(outcome.record.chaos?.fault).toBe(fault);
      expectClassified(outcome, fault === 'hang' ? 'sdk-timeout' : 'abort');
    });

    it('a seeded mixed run: every fault classified, every other call answered', async () => {
      provider = await createMockProvider({
        chaos: { seed: `mixed/${api}/${stream}`, retryAfterSeconds: RETRY_AFTER_SECONDS },
      });
      const seen = new Set<MockChaosFault>();
      for (let index = 0; index < 40; index++) {
        const outcome = await callOnce(provider, api, stream);
        if (outcome.record.chaos) seen.add(outcome.record.chaos.fault);
        expectClassified(outcome, 'abort');
      }
      const stats = provider.chaosStats();
      expect(stats.requests).toBe(40);
      expect(seen.size).toBeGreaterThan(1);
      expect(Object.values(stats.faults).reduce((sum, count) => sum + count, 0)).toBe(
        40 - stats.passed,
      );
    });
  });
});
