import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import {
  clientFor,
  drain,
  hello,
  SDK_APIS,
  SDK_TARGETS,
  textOf,
  transportFor,
  useMockProvider,
} from '../test/mock-transport';
import { createTransport, type TransportOptions } from './create-transport';
import type { OpenAIClientLike } from './openai-client-like';
import { MissingSdkError } from './transport-error';

const mock = useMockProvider();

/** Imports a package that is not installed, exactly as the default loader would fail. */
function importMissing<T>(): Promise<T> {
  const name = 'keel-test-package-that-is-not-installed';
  return import(/* @vite-ignore */ name) as Promise<T>;
}

const packageOf = {
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  'anthropic-messages': '@anthropic-ai/sdk',
} as const;

describe.each(SDK_APIS)('createTransport({ api: %s })', (api) => {
  it('fails the call with an error naming the SDK package when it is not installed', async () => {
    const transport = createTransport({
      api,
      model: mock.model,
      apiKey: 'unused',
      baseUrl: mock.url,
      loadSdk: importMissing,
    } as TransportOptions);
    expect(transport.api).toBe(api);
    expect(transport.specificationVersion).toBe('v1');
    const { events, error } = await drain(transport.stream(hello));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(MissingSdkError);
    expect(MissingSdkError.isInstance(error)).toBe(true);
    const missing = error as MissingSdkError;
    expect(missing.packageName).toBe(packageOf[api]);
    expect(missing.message).toContain(`npm install ${packageOf[api]}`);
    expect(missing.message).toContain(`"${api}"`);
    expect(missing.cause).toBeInstanceOf(Error);
    expect(mock.requests).toHaveLength(0);
  });
});

describe.each(SDK_TARGETS)('createTransport for $name', (target) => {
  it('sends defaultHeaders and names the provider', async () => {
    mock.enqueue({ type: 'ok', text: 'with headers' });
    const transport = transportFor(target, mock, {
      provider: 'my-gateway',
      apiKey: 'k-1234',
      defaultHeaders: { 'x-keel-test': 'yes' },
    });
    expect(transport.provider).toBe('my-gateway');
    const { events, error } = await drain(transport.stream(hello));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('with headers');
    expect(mock.requests[0]?.headers['x-keel-test']).toBe('yes');
  });
});

describe('an injected SDK client', () => {
  it('has its API key redacted from errors too', async () => {
    const key = 'sk-injected-secret-0123456789';
    mock.enqueue({
      type: 'http-error',
      status: 401,
      errorType: 'authentication_error',
      message: `bad key ${key}`,
    });
    const client = new Anthropic({ apiKey: key, baseURL: mock.anthropicBaseUrl, maxRetries: 0 });
    const transport = createTransport({ api: 'anthropic-messages', model: mock.model, client });
    const { error } = await drain(transport.stream(hello));
    expect(String((error as Error).message)).toContain('bad key [redacted]');
    expect(JSON.stringify(error)).not.toContain(key);
  });

  it.each(SDK_TARGETS.filter((target) => target.api === 'openai-chat'))(
    'is used for $name instead of building one',
    async (target) => {
      mock.enqueue({ type: 'ok', text: 'from injected' });
      const client = clientFor(target, mock, {
        apiKey: 'injected-openai',
        defaultHeaders: { 'x-injected': 'openai' },
      }) as OpenAIClientLike;
      const transport = createTransport({
        api: 'openai-chat',
        model: mock.model,
        client,
        maxRetries: 0,
      });
      const { events } = await drain(transport.stream(hello));
      expect(textOf(events)).toBe('from injected');
      expect(mock.requests[0]?.apiKey).toBe('injected-openai');
      expect(mock.requests[0]?.headers['x-injected']).toBe('openai');
    },
  );

  it('is used for anthropic-messages instead of building one', async () => {
    mock.enqueue({ type: 'ok', text: 'from injected' });
    const client = new Anthropic({ apiKey: 'injected-anthropic', baseURL: mock.anthropicBaseUrl });
    const transport = createTransport({ api: 'anthropic-messages', model: mock.model, client });
    const { events } = await drain(transport.stream(hello));
    expect(textOf(events)).toBe('from injected');
    expect(mock.requests[0]?.apiKey).toBe('injected-anthropic');
  });
});

describe('createTransport({ api: claude-cli })', () => {
  it('dispatches to the claude-cli transport, which runs its own tools and binds sessions', () => {
    const transport = createTransport({ api: 'claude-cli', command: 'claude', provider: 'cli' });
    expect(transport.api).toBe('claude-cli');
    expect(transport.provider).toBe('cli');
    expect(transport.specificationVersion).toBe('v1');
    expect(transport.capabilities).toEqual({ runsOwnTools: true, bindsSessions: true });
  });
});

describe.each(SDK_APIS)('the %s transport as a model port', (api) => {
  it('leaves tools to its caller and keeps no session', () => {
    const transport = createTransport({ api, model: 'm' } as TransportOptions);
    expect(transport.specificationVersion).toBe('v1');
    expect(transport.capabilities).toEqual({ runsOwnTools: false, bindsSessions: false });
  });
});
