import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChaosCall, chaosCall } from '../test/chaos-calls';
import type { MockChaosFault } from './mock-chaos-types';
import { createMockProvider } from './mock-provider';
import type { MockApi, MockBehavior, MockProvider } from './mock-provider-types';

/*
 * Each chaos fault, forced (rate 1), against the real SDKs on every api, streaming or not: what
 * the client sees must be the provider's real wire shape for that fault.
 */

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

let provider: MockProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

type ApiError = InstanceType<typeof Anthropic.APIError> | InstanceType<typeof OpenAI.APIError>;

function sdk(api: MockApi) {
  return api === 'anthropic-messages' ? Anthropic : OpenAI;
}

function behaviorOf<T extends MockBehavior['type']>(call: ChaosCall, type: T) {
  const behavior = call.record.chaos?.behavior;
  expect(behavior?.type).toBe(type);
  return behavior as Extract<MockBehavior, { type: T }>;
}

/** An HTTP error: its SDK class, status and provider error body. */
function expectStatusError(call: ChaosCall, api: MockApi, status: number, type: string) {
  expect(call.error).toBeInstanceOf(sdk(api).APIError);
  const error = call.error as ApiError;
  expect(error.status).toBe(status);
  if (api === 'anthropic-messages') {
    expect(error.error).toMatchObject({ type: 'error', error: { type } });
    expect(error.requestID).toMatch(/^req_mock_/);
  } else {
    expect((error as InstanceType<typeof OpenAI.APIError>).type).toBe(type);
  }
  expect(call.events).toEqual([]);
}

const checks: Record<MockChaosFault, (call: ChaosCall, api: MockApi, stream: boolean) => void> = {
  'reset-before-headers'(call, api) {
    expect(call.error).toBeInstanceOf(sdk(api).APIConnectionError);
    expect(call.events).toEqual([]);
  },
  'server-error'(call, api) {
    const { status } = behaviorOf(call, 'http-error');
    expect([500, 502, 503]).toContain(status);
    expectStatusError(
      call,
      api,
      status,
      api === 'anthropic-messages' ? 'api_error' : 'server_error',
    );
    expect((call.error as Error).message).not.toMatch(/overloaded/i);
  },
  overloaded(call, api) {
    if (api === 'anthropic-messages') expectStatusError(call, api, 529, 'overloaded_error');
    else {
      expectStatusError(call, api, 503, 'server_error');
      expect((call.error as Error).message).toContain('That model is currently overloaded');
    }
  },
  'rate-limited'(call, api) {
    const type = api === 'anthropic-messages' ? 'rate_limit_error' : 'requests';
    expectStatusError(call, api, 429, type);
    expect(call.error).toBeInstanceOf(sdk(api).RateLimitError);
    expect((call.error as ApiError).headers?.get('retry-after')).toBe('2');
  },
  'reset-after-chunks'(call, _api, stream) {
    const { chunks } = behaviorOf(call, 'reset-after-chunks');
    expect(chunks).toBeGreaterThanOrEqual(1);
    expect(call.error).toMatchObject({ name: 'TypeError', message: 'terminated' });
    expect(call.texts).toHaveLength(stream ? chunks : 0);
    expect(call.complete).toBe(false);
  },
  'truncated-stream'(call, _api, stream) {
    const { chunks = 0 } = behaviorOf(call, 'truncated-stream');
    if (stream) {
      expect(call.error).toBeUndefined();
      expect(call.texts).toHaveLength(chunks);
    } else {
      expect(call.error).toBeInstanceOf(SyntaxError);
    }
    expect(call.complete).toBe(false);
  },
  'stream-error'(call, api, stream) {
    const { afterChunks = 0, errorType = '' } = behaviorOf(call, 'stream-error');
    const anthropic = api === 'anthropic-messages';
    expect(errorType).toEqual(
      anthropic ? expect.stringMatching(/^(overloaded|api)_error$/) : 'server_error',
    );
    if (!stream) {
      expectStatusError(call, api, errorType === 'overloaded_error' ? 529 : 500, errorType);
      return;
    }
    expect(call.texts).toHaveLength(afterChunks);
    expect(call.complete).toBe(false);
    if (api === 'openai-responses') {
      // Responses in-stream errors are events: `error`, then `response.failed`.
      expect(call.error).toBeUndefined();
      expect(call.events.slice(-2)).toEqual(['error', 'response.failed']);
      return;
    }
    expect(call.error).toBeInstanceOf(sdk(api).APIError);
    const error = call.error as ApiError;
    expect(error.status).toBeUndefined();
    if (anthropic) expect(error.error).toMatchObject({ type: 'error', error: { type: errorType } });
    else expect((error as InstanceType<typeof OpenAI.APIError>).type).toBe('server_error');
  },
  hang(call, api) {
    expect(call.aborted).toBe(true);
    expect(call.error).toBeInstanceOf(sdk(api).APIUserAbortError);
    expect(call.events).toEqual([]);
  },
  stall(call, _api, stream) {
    const { afterChunks = 0 } = behaviorOf(call, 'stall');
    expect(call.aborted).toBe(true);
    expect(call.texts).toHaveLength(stream ? afterChunks : 0);
    expect(call.complete).toBe(false);
  },
};

describe.each(FAULTS)('chaos fault %s', (fault) => {
  it.each(
    APIS.flatMap((api) => [
      [api, true],
      [api, false],
    ]),
  )('is in the wire shape of %s (stream: %s)', async (api, stream) => {
    provider = await createMockProvider({
      chaos: { seed: `${fault} ${api} ${stream}`, rates: { [fault]: 1 }, retryAfterSeconds: 2 },
    });
    const call = await chaosCall(provider, api as MockApi, { stream: stream as boolean });
    expect(call.record.chaos).toMatchObject({ fault, index: 0 });
    checks[fault](call, api as MockApi, stream as boolean);
    expect(provider.chaosStats().faults[fault]).toBe(1);
    // A hang or stall ends when the client aborts: the provider answers the next request.
    const next = await chaosCall(provider, api as MockApi, { stream: true });
    expect(next.record.chaos?.fault).toBe(fault);
  });
});
