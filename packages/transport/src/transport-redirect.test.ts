import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { classifyError } from '@keel/error-classification';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baseUrlFor,
  drain,
  hello,
  SDK_TARGETS,
  transportFor,
  useMockProvider,
} from '../test/mock-transport';

const mock = useMockProvider();

/** Answers every request with a `307` to the same path on the mock provider. */
let redirector: Server;
let redirects = 0;
let redirectorUrl = '';

beforeAll(async () => {
  redirector = createServer((request, response) => {
    redirects += 1;
    const target = new URL(mock.openaiBaseUrl).origin;
    response.writeHead(307, { location: `${target}${request.url ?? '/'}` }).end();
  });
  redirector.listen(0, '127.0.0.1');
  await once(redirector, 'listening');
  redirectorUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => redirector.close(() => resolve())));

describe.each(SDK_TARGETS)('$name redirects', (target) => {
  it.each([
    ['streamed', undefined],
    ['whole', 'whole' as const],
  ])(
    'a redirect (%s) is refused, never followed: the key stays with the configured address',
    async (_name, delivery) => {
      const before = redirects;
      const path = new URL(baseUrlFor(target.api, mock)).pathname;
      const transport = transportFor(target, mock, { baseUrl: `${redirectorUrl}${path}` });
      const request = delivery === undefined ? hello : { ...hello, delivery };
      const { events, error } = await drain(transport.stream(request));
      expect(redirects).toBe(before + 1);
      expect(mock.requests).toHaveLength(0);
      expect(events).toEqual([]);
      expect(classifyError(error).kind).toBe('connection');
    },
  );
});
