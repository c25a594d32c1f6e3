import { createServer } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { classifyError } from '@keel/error-classification';
import { describe, expect, it } from 'vitest';
import { nameErrorCause, systemCauseOf } from './name-error-cause';

/** A loopback port nothing listens on: one a server had a moment ago. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('nameErrorCause', () => {
  it("names the refused address of the SDK's connection error, which says only 'Connection error.'", async () => {
    const port = await closedPort();
    const client = new Anthropic({
      apiKey: 'k',
      baseURL: `http://127.0.0.1:${port}`,
      maxRetries: 0,
    });
    const error = await client.messages
      .create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect((error as Error).message).toBe('Connection error.');
    const classified = nameErrorCause(classifyError)(error, {});
    expect(classified.kind).toBe('connection');
    expect(classified.message).toBe(`Connection error. (cause: ECONNREFUSED 127.0.0.1:${port})`);
  });

  it('leaves a classification without a system cause, or already naming it, as it is', () => {
    const plain = new Error('boom');
    expect(nameErrorCause(classifyError)(plain, {})).toEqual(classifyError(plain, {}));
    const named = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:80'), {
      code: 'ECONNREFUSED',
      address: '10.0.0.1',
      port: 80,
    });
    expect(nameErrorCause(classifyError)(named, {}).message).toBe(
      'connect ECONNREFUSED 10.0.0.1:80',
    );
  });
});

describe('systemCauseOf', () => {
  it('takes the innermost coded error of the cause chain, with its address and port', () => {
    const inner = Object.assign(new Error('x'), { code: 'ECONNRESET', address: '::1', port: 443 });
    const middle = Object.assign(new Error('fetch failed', { cause: inner }), { code: 'EOUTER' });
    expect(systemCauseOf(new Error('Connection error.', { cause: middle }))).toBe(
      'ECONNRESET [::1]:443',
    );
  });

  it("reads an AggregateError's first error and a host name", () => {
    const first = Object.assign(new Error('a'), { address: '127.0.0.1', port: 1 });
    const aggregate = Object.assign(new AggregateError([first], ''), { code: 'ECONNREFUSED' });
    expect(systemCauseOf(new Error('x', { cause: aggregate }))).toBe('ECONNREFUSED 127.0.0.1:1');
    const dns = Object.assign(new Error('getaddrinfo'), {
      code: 'ENOTFOUND',
      hostname: 'api.example.test',
    });
    expect(systemCauseOf(dns)).toBe('ENOTFOUND api.example.test');
  });

  it('is undefined without a Node error code (an HTTP status code is not one)', () => {
    expect(systemCauseOf(Object.assign(new Error('x'), { code: 'rate_limit' }))).toBeUndefined();
    expect(systemCauseOf('text')).toBeUndefined();
  });
});
