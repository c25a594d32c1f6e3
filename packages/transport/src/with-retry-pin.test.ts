import { classifyError } from '@keel/error-classification';
import type { ModelCallOptions, ModelEvent, ModelRequest } from '@keel/spec';
import { mockFaults } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import {
  clientFor,
  drain,
  hello,
  SDK_TARGETS,
  type SdkTarget,
  textOf,
  transportFor,
  useMockProvider,
} from '../test/mock-transport';
import { createTransport, type TransportOptions } from './create-transport';
import type { Transport } from './types';
import { retryPinOf, withRetryPin } from './with-retry-pin';

const mock = useMockProvider();

describe.each(SDK_TARGETS)('$name retry pin, proven by request counts', (target) => {
  it('without the pin, maxRetries 1 turns a 500 then OK into two requests and a reply', async () => {
    mock.enqueue(mockFaults.serverError(500), { type: 'ok', text: 'second time lucky' });
    const transport = transportFor(target, mock, { maxRetries: 1 });
    const { events, error } = await drain(transport.stream(hello));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('second time lucky');
    expect(mock.requests).toHaveLength(2);
  });

  it('with the pin, the same script yields exactly one request and a server_error', async () => {
    mock.enqueue(mockFaults.serverError(500), { type: 'ok', text: 'never sent' });
    const pinned = withRetryPin(transportFor(target, mock, { maxRetries: 1 }), 0);
    const { events, error } = await drain(pinned.stream(hello, { maxRetries: 3 }));
    expect(events).toEqual([]);
    expect(classifyError(error).kind).toBe('server_error');
    expect(mock.requests).toHaveLength(1);
    expect(mock.pending()).toBe(1);
  });

  it('a per-call maxRetries is forwarded to the SDK when not pinned', async () => {
    mock.enqueue(mockFaults.serverError(500), { type: 'ok', text: 'ok' });
    const { error } = await drain(
      transportFor(target, mock, { maxRetries: 1 }).stream(hello, { maxRetries: 0 }),
    );
    expect(classifyError(error).kind).toBe('server_error');
    expect(mock.requests).toHaveLength(1);
  });

  it('a per-call maxRetries may also widen the configured one (it is sent per request)', async () => {
    mock.enqueue(mockFaults.serverError(500), { type: 'ok', text: 'per-call retry' });
    const { events, error } = await drain(
      transportFor(target, mock, { maxRetries: 0 }).stream(hello, { maxRetries: 1 }),
    );
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('per-call retry');
    expect(mock.requests).toHaveLength(2);
  });

  it('an injected client configured with retries is pinned too', async () => {
    mock.enqueue(mockFaults.serverError(500), { type: 'ok', text: 'never sent' });
    const pinned = withRetryPin(injectedClientTransport(target, 3), 0);
    const { error } = await drain(pinned.stream(hello, { maxRetries: 3 }));
    expect(classifyError(error).kind).toBe('server_error');
    expect(mock.requests).toHaveLength(1);
  });
});

/** A transport around a ready SDK client whose own default is `clientMaxRetries`. */
function injectedClientTransport(target: SdkTarget, clientMaxRetries: number): Transport {
  const client = clientFor(target, mock, { apiKey: 'k', maxRetries: clientMaxRetries });
  return createTransport({ api: target.api, model: mock.model, client } as TransportOptions);
}

describe('withRetryPin', () => {
  function recordingTransport(seen: Array<ModelCallOptions | undefined>): Transport {
    return {
      specificationVersion: 'v1',
      api: 'openai-chat',
      provider: 'recording',
      capabilities: { runsOwnTools: false, bindsSessions: false },
      async *stream(
        _request: ModelRequest,
        options?: ModelCallOptions,
      ): AsyncGenerator<ModelEvent> {
        seen.push(options);
        yield { type: 'finish', reason: 'stop' };
      },
    };
  }

  it('forces maxRetries last and keeps the other call options', async () => {
    const seen: Array<ModelCallOptions | undefined> = [];
    const signal = new AbortController().signal;
    const pinned = withRetryPin(recordingTransport(seen), 0);
    await drain(pinned.stream(hello, { maxRetries: 5, signal, stallTimeoutMs: 10 }));
    await drain(pinned.stream(hello));
    expect(seen).toEqual([{ maxRetries: 0, signal, stallTimeoutMs: 10 }, { maxRetries: 0 }]);
    expect(pinned.api).toBe('openai-chat');
    expect(pinned.provider).toBe('recording');
    expect(pinned.specificationVersion).toBe('v1');
    expect(pinned.capabilities).toEqual({ runsOwnTools: false, bindsSessions: false });
  });

  it('pinning twice re-pins the inner transport: one wrapper, never wider', async () => {
    const seen: Array<ModelCallOptions | undefined> = [];
    const inner = recordingTransport(seen);
    const once = withRetryPin(inner, 0);
    const twice = withRetryPin(once, 3);
    expect(retryPinOf(twice)).toBe(0);
    expect(retryPinOf(inner)).toBeUndefined();
    const narrowed = withRetryPin(withRetryPin(inner, 2), 1);
    expect(retryPinOf(narrowed)).toBe(1);
    // No stacked wrappers: every pin wraps the original transport itself.
    const pinState = (transport: Transport) =>
      (transport as unknown as Record<symbol, { inner: Transport } | undefined>)[
        Symbol.for('keel.transport.retryPin')
      ];
    expect(pinState(twice)?.inner).toBe(inner);
    expect(pinState(narrowed)?.inner).toBe(inner);
    await drain(twice.stream(hello, { maxRetries: 9 }));
    await drain(narrowed.stream(hello));
    expect(seen.map((options) => options?.maxRetries)).toEqual([0, 1]);
    expect(seen).toHaveLength(2);
  });

  it('rejects a negative or fractional pin', () => {
    const inner = recordingTransport([]);
    expect(() => withRetryPin(inner, -1)).toThrow(RangeError);
    expect(() => withRetryPin(inner, 0.5)).toThrow(RangeError);
  });
});
