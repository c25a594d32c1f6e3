import { classifyError } from '@keel/error-classification';
import { describe, expect, it } from 'vitest';
import {
  drain,
  hello,
  SDK_TARGETS,
  textOf,
  transportFor,
  useMockProvider,
} from '../test/mock-transport';
import { createTcpRelay } from '../test/tcp-relay';
import { TransportAbortError, TransportTimeoutError } from './transport-error';

const mock = useMockProvider();

describe.each(SDK_TARGETS)('$name timeouts and aborts', (target) => {
  const { api } = target;
  it('a hanging provider hits the per-attempt timeout (transport option)', async () => {
    mock.enqueue({ type: 'hang' });
    const signal = new AbortController().signal;
    const transport = transportFor(target, mock, { timeoutMs: 150 });
    const { events, error } = await drain(transport.stream(hello, { signal }));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(TransportTimeoutError);
    expect(error).toMatchObject({ keelKind: 'timeout', timeoutKind: 'attempt', timeoutMs: 150 });
    expect(classifyError(error, { signal }).kind).toBe('timeout');
  });

  it('a hanging provider hits the first-token timeout (per-call option)', async () => {
    mock.enqueue({ type: 'hang' });
    const { error } = await drain(
      transportFor(target, mock).stream(hello, { firstTokenTimeoutMs: 150 }),
    );
    expect(error).toMatchObject({ keelKind: 'timeout', timeoutKind: 'first-token' });
    expect(classifyError(error).kind).toBe('timeout');
  });

  it('a per-call timeoutMs overrides the transport one', async () => {
    mock.enqueue({ type: 'hang' });
    const transport = transportFor(target, mock, { timeoutMs: 60_000 });
    const { error } = await drain(transport.stream(hello, { timeoutMs: 120 }));
    expect(error).toMatchObject({ keelKind: 'timeout', timeoutKind: 'attempt', timeoutMs: 120 });
  });

  it('a stream that goes silent hits the stall timeout after its first chunks', async () => {
    mock.enqueue({ type: 'stall', afterChunks: 1 });
    const { events, error } = await drain(
      transportFor(target, mock, { stallTimeoutMs: 2_000 }).stream(hello, { stallTimeoutMs: 150 }),
    );
    expect(textOf(events).length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(TransportTimeoutError);
    expect(error).toMatchObject({ timeoutKind: 'stall', timeoutMs: 150 });
    expect(classifyError(error).kind).toBe('timeout');
  });

  it('slow tokens within the stall timeout succeed', async () => {
    mock.enqueue({ type: 'ok', text: 'slow but steady tokens', chunkSize: 4, chunkDelayMs: 40 });
    const { events, error } = await drain(
      transportFor(target, mock, {
        stallTimeoutMs: 1_000,
        firstTokenTimeoutMs: 5_000,
        timeoutMs: 15_000,
      }).stream(hello),
    );
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('slow but steady tokens');
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });

  it('time the consumer spends on an event does not count as a stall', async () => {
    mock.enqueue({
      type: 'ok',
      text: 'steady provider, slow consumer',
      chunkSize: 15,
      chunkDelayMs: 10,
    });
    // A wide margin between the provider's pace and the stall clock, so a busy machine cannot
    // make it fire; the consumer is slower than the clock by as much.
    const transport = transportFor(target, mock, { stallTimeoutMs: 400 });
    let text = '';
    for await (const event of transport.stream(hello)) {
      if (event.type === 'text-delta') text += event.text;
      // A consumer busy with each event for longer than the stall timeout.
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(text).toBe('steady provider, slow consumer');
  });

  it('a caller abort mid-stream is a caller_abort, not a timeout', async () => {
    mock.enqueue({
      type: 'ok',
      text: 'a long answer that keeps coming',
      chunkSize: 3,
      chunkDelayMs: 50,
    });
    const controller = new AbortController();
    const { events, error } = await drain(
      transportFor(target, mock, { stallTimeoutMs: 5_000 }).stream(hello, {
        signal: controller.signal,
      }),
      (event) => {
        if (event.type === 'text-delta') controller.abort();
      },
    );
    expect(events.filter((event) => event.type === 'text-delta')).toHaveLength(1);
    expect(error).toBeInstanceOf(TransportAbortError);
    expect(error).not.toBeInstanceOf(TransportTimeoutError);
    expect(classifyError(error, { signal: controller.signal }).kind).toBe('caller_abort');
  });

  it('a caller abort while waiting for headers is a caller_abort', async () => {
    mock.enqueue({ type: 'hang' });
    const controller = new AbortController();
    const run = drain(
      transportFor(target, mock, { timeoutMs: 10_000 }).stream(hello, {
        signal: controller.signal,
      }),
    );
    await expect.poll(() => mock.requests.length).toBe(1);
    controller.abort();
    const { error } = await run;
    expect(error).toBeInstanceOf(TransportAbortError);
    // The SDK saw the abort itself: the signal reached it, the request did not just get dropped.
    expect((error as Error).cause).toBeInstanceOf(target.Client.APIUserAbortError);
    expect(classifyError(error, { signal: controller.signal }).kind).toBe('caller_abort');
  });

  it('leaving the loop early aborts the HTTP request: its connection closes', async () => {
    const relay = await createTcpRelay(mock.port);
    try {
      mock.enqueue({ type: 'stall', afterChunks: 1 });
      const baseUrl = api === 'anthropic-messages' ? relay.url : `${relay.url}/v1`;
      const transport = transportFor(target, mock, { baseUrl });
      let deltas = 0;
      for await (const event of transport.stream(hello)) {
        if (event.type === 'text-delta') {
          deltas += 1;
          expect(relay.openConnections()).toBe(1);
          break;
        }
      }
      expect(deltas).toBe(1);
      expect(mock.requests).toHaveLength(1);
      // The mock never ends a stalled response: only the client can close this connection.
      await expect.poll(() => relay.openConnections()).toBe(0);
    } finally {
      await relay.close();
    }
  });

  it('an already aborted signal sends no request', async () => {
    const signal = AbortSignal.abort();
    const { error } = await drain(transportFor(target, mock).stream(hello, { signal }));
    expect(error).toBeInstanceOf(TransportAbortError);
    expect(mock.requests.filter((request) => request.api === api)).toHaveLength(0);
  });
});
