import { setTimeout as delay } from 'node:timers/promises';
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

/*
 * On a busy 2-core machine an event loop can stall for a good part of a second: every clock here
 * either has to fire (a provider that hangs or stalls for ever) or has a wide margin over what it
 * measures, and every wait is for an event (a request received, a connection closed), with
 * limits that only catch a hang. Each test answers from its own script (`useMockProvider`).
 */
const PATIENCE = { timeout: 30_000, interval: 20 };

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
    // The first chunk comes with the headers; the silence after it never ends.
    const { events, error } = await drain(
      transportFor(target, mock, { stallTimeoutMs: 60_000 }).stream(hello, {
        stallTimeoutMs: 1_000,
      }),
    );
    expect(textOf(events).length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(TransportTimeoutError);
    expect(error).toMatchObject({ timeoutKind: 'stall', timeoutMs: 1_000 });
    expect(classifyError(error).kind).toBe('timeout');
  });

  it('slow tokens within the stall timeout succeed', async () => {
    mock.enqueue({ type: 'ok', text: 'slow but steady tokens', chunkSize: 4, chunkDelayMs: 40 });
    // Each gap is 40 ms; the clocks allow 250 times that, so only a real stall could fire them.
    const { events, error } = await drain(
      transportFor(target, mock, {
        stallTimeoutMs: 10_000,
        firstTokenTimeoutMs: 10_000,
        timeoutMs: 60_000,
      }).stream(hello),
    );
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('slow but steady tokens');
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });

  it('time the consumer spends on an event does not count as a stall', async () => {
    // The whole answer is sent at once, so the next chunk is always there when the consumer asks
    // for it: only time spent in the consumer's loop could look like a stall.
    mock.enqueue({ type: 'ok', text: 'steady provider, slow consumer', chunkSize: 100 });
    const stallTimeoutMs = 1_500;
    const transport = transportFor(target, mock, { stallTimeoutMs });
    let text = '';
    for await (const event of transport.stream(hello)) {
      if (event.type !== 'text-delta') continue;
      text += event.text;
      // A consumer busy with the event for longer than the stall timeout.
      await delay(stallTimeoutMs + 500);
    }
    expect(text).toBe('steady provider, slow consumer');
  });

  it('a caller abort mid-stream is a caller_abort, not a timeout', async () => {
    // One chunk, then an open stream that sends nothing more: nothing can arrive after the abort.
    mock.enqueue({ type: 'stall', afterChunks: 1 });
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
    await expect.poll(() => mock.requests.length, PATIENCE).toBe(1);
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
      await expect.poll(() => relay.openConnections(), PATIENCE).toBe(0);
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
