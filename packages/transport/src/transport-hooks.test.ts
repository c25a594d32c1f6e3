import { mockFaults } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import {
  baseUrlFor,
  drain,
  hello,
  SDK_TARGETS,
  SECRET_KEY,
  transportFor,
  useMockProvider,
} from '../test/mock-transport';
import type { TransportHooks } from './types';

const mock = useMockProvider();

interface HookCall {
  hook: keyof TransportHooks;
  context: Record<string, unknown>;
}

function recordingHooks(calls: HookCall[]): TransportHooks {
  return {
    onRequestStart: (context) => calls.push({ hook: 'onRequestStart', context: { ...context } }),
    onResponse: (context) => calls.push({ hook: 'onResponse', context: { ...context } }),
    onRequestError: (context) => calls.push({ hook: 'onRequestError', context: { ...context } }),
  };
}

/** Everything an error exposes: message, stack, own fields and its cause chain, as text. */
function errorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth += 1) {
    const record = current as Record<string, unknown>;
    parts.push(String(record['message']), String(record['stack']));
    try {
      parts.push(JSON.stringify(current));
    } catch {
      parts.push('[unserialisable]');
    }
    current = record['cause'];
  }
  return parts.join('\n');
}

describe.each(SDK_TARGETS)('$name lifecycle hooks', (target) => {
  const { api } = target;
  it('reports start and response with sanitized fields only', async () => {
    mock.enqueue({ type: 'ok', text: 'hi' });
    const calls: HookCall[] = [];
    const transport = transportFor(target, mock, {
      hooks: recordingHooks(calls),
      provider: 'local',
    });
    const model = `${mock.model}-hooked`;
    const { error } = await drain(transport.stream({ ...hello, model }));
    expect(error).toBeUndefined();
    expect(calls.map((call) => call.hook)).toEqual(['onRequestStart', 'onResponse']);
    const [start, response] = calls;
    expect(start?.context).toEqual({
      provider: 'local',
      api,
      model,
      url: baseUrlFor(api, mock),
      attemptId: expect.any(String),
    });
    expect(response?.context).toMatchObject({
      attemptId: start?.context['attemptId'],
      status: 200,
      elapsedMs: expect.any(Number),
    });
    expect(JSON.stringify(calls)).not.toContain(SECRET_KEY);
    expect(mock.requests[0]?.apiKey).toBe(SECRET_KEY);
  });

  it('never lets the API key reach a hook or an error, even when the provider echoes it', async () => {
    mock.enqueue({
      ...mockFaults.unauthorized(),
      message: `Incorrect API key provided: ${SECRET_KEY}.`,
      openai: { message: `Incorrect API key provided: ${SECRET_KEY}.`, code: 'invalid_api_key' },
    });
    const calls: HookCall[] = [];
    const transport = transportFor(target, mock, { hooks: recordingHooks(calls) });
    const { error } = await drain(transport.stream(hello));
    expect(error).toBeInstanceOf(Error);
    expect(errorText(error)).toContain('Incorrect API key provided');
    expect(errorText(error)).not.toContain(SECRET_KEY);
    expect(calls.map((call) => call.hook)).toEqual(['onRequestStart', 'onRequestError']);
    expect(calls[1]?.context).toMatchObject({ status: 401, errorKind: 'auth' });
    expect(JSON.stringify(calls)).not.toContain(SECRET_KEY);
  });

  it('redacts a key the SDK read from its environment variable', async () => {
    const variable = api === 'anthropic-messages' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
    const previous = process.env[variable];
    process.env[variable] = SECRET_KEY;
    try {
      mock.enqueue({
        ...mockFaults.unauthorized(),
        message: `Incorrect API key provided: ${SECRET_KEY}.`,
        openai: { message: `Incorrect API key provided: ${SECRET_KEY}.`, code: 'invalid_api_key' },
      });
      const calls: HookCall[] = [];
      const transport = transportFor(target, mock, {
        apiKey: undefined,
        hooks: recordingHooks(calls),
      });
      const { error } = await drain(transport.stream(hello));
      expect(mock.requests[0]?.apiKey).toBe(SECRET_KEY);
      expect(errorText(error)).toContain('Incorrect API key provided: [redacted]');
      expect(errorText(error)).not.toContain(SECRET_KEY);
      expect(JSON.stringify(calls)).not.toContain(SECRET_KEY);
    } finally {
      if (previous === undefined) delete process.env[variable];
      else process.env[variable] = previous;
    }
  });

  it('strips credentials, query and fragment of the base URL before it reaches a hook', async () => {
    const calls: HookCall[] = [];
    const transport = transportFor(target, mock, {
      baseUrl: `http://keel:${SECRET_KEY}@127.0.0.1:9/${SECRET_KEY}/v1?api-key=${SECRET_KEY}#${SECRET_KEY}`,
      hooks: recordingHooks(calls),
    });
    const { error } = await drain(transport.stream(hello, { signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ keelKind: 'caller_abort' });
    expect(calls.map((call) => call.hook)).toEqual(['onRequestStart', 'onRequestError']);
    for (const call of calls) expect(call.context['url']).toBe('http://127.0.0.1:9/[redacted]/v1');
    expect(JSON.stringify(calls)).not.toContain(SECRET_KEY);
    expect(errorText(error)).not.toContain(SECRET_KEY);
  });

  it('reports a stall timeout to onRequestError as timeout, and a throwing hook breaks nothing', async () => {
    mock.enqueue({ type: 'stall', afterChunks: 1 });
    const kinds: string[] = [];
    const transport = transportFor(target, mock, {
      stallTimeoutMs: 100,
      hooks: {
        onRequestStart: () => {
          throw new Error('observer bug');
        },
        onRequestError: (context) => kinds.push(context.errorKind),
      },
    });
    const { error } = await drain(transport.stream(hello));
    expect(error).toMatchObject({ keelKind: 'timeout' });
    expect(kinds).toEqual(['timeout']);
  });

  it('reports a caller abort to onRequestError as caller_abort', async () => {
    mock.enqueue({ type: 'hang' });
    const kinds: string[] = [];
    const controller = new AbortController();
    const transport = transportFor(target, mock, {
      hooks: { onRequestError: (context) => kinds.push(context.errorKind) },
    });
    const run = drain(transport.stream(hello, { signal: controller.signal }));
    await expect.poll(() => mock.requests.length, { timeout: 30_000, interval: 20 }).toBe(1);
    controller.abort();
    const { error } = await run;
    expect(error).toMatchObject({ name: 'AbortError', keelKind: 'caller_abort' });
    expect(kinds).toEqual(['caller_abort']);
  });
});
