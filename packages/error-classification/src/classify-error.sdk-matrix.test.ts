import {
  createMockProvider,
  type MockBehavior,
  type MockProvider,
  mockFaults,
} from '@keel/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  callMock,
  captureError,
  MATRIX_APIS,
  type MatrixApi,
  untilRequests,
} from '../test/__fixtures__/sdk-clients';
import { keelError } from '../test/keel-error';
import { classifyError } from './classify-error';
import type { ErrorKind } from './error-kind';

/*
 * Real `openai` 6.x and `@anthropic-ai/sdk` clients against the @keel/testing loopback provider:
 * every error here is one the SDK really threw.
 */

let mock: MockProvider;
beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.reset();
});

interface HttpCase {
  name: string;
  behavior: MockBehavior;
  kind: ErrorKind;
  retryAfterMs?: number;
  cooldownMs?: number;
}

const HTTP_CASES: HttpCase[] = [
  {
    name: 'overloaded preset (Anthropic 529, OpenAI 503 wording)',
    behavior: mockFaults.overloaded(),
    kind: 'overloaded',
  },
  {
    name: 'rate limited with retry-after',
    behavior: mockFaults.rateLimited({ retryAfterSeconds: 7 }),
    kind: 'rate_limit',
    retryAfterMs: 7000,
  },
  {
    name: 'rate limited with a retry-after of two minutes (reported as a cooldown)',
    behavior: mockFaults.rateLimited({ retryAfterSeconds: 120 }),
    kind: 'rate_limit',
    cooldownMs: 120_000,
  },
  {
    name: 'rate limited with retry-after-ms',
    behavior: mockFaults.rateLimited({ retryAfterMs: 1500 }),
    kind: 'rate_limit',
    retryAfterMs: 1500,
  },
  { name: 'unauthorized', behavior: mockFaults.unauthorized(), kind: 'auth' },
  {
    name: 'billing (Anthropic 400, OpenAI 429 insufficient_quota)',
    behavior: mockFaults.billing(),
    kind: 'billing',
  },
  { name: 'prompt too long', behavior: mockFaults.promptTooLong(), kind: 'context_overflow' },
  { name: 'model not found', behavior: mockFaults.modelNotFound(), kind: 'model_not_found' },
  { name: 'server error 500', behavior: mockFaults.serverError(500), kind: 'server_error' },
  { name: 'server error 502', behavior: mockFaults.serverError(502), kind: 'server_error' },
  { name: 'server error 503', behavior: mockFaults.serverError(503), kind: 'server_error' },
  { name: 'server error 504', behavior: mockFaults.serverError(504), kind: 'server_error' },
  {
    name: '503 with "model is overloaded" wording',
    behavior: {
      type: 'http-error',
      status: 503,
      errorType: 'api_error',
      message: 'The model is overloaded. Please try again later.',
    },
    kind: 'overloaded',
  },
  {
    name: '402 billing_error',
    behavior: {
      type: 'http-error',
      status: 402,
      errorType: 'billing_error',
      message: 'Payment required.',
    },
    kind: 'billing',
  },
  {
    name: '403 permission_error',
    behavior: {
      type: 'http-error',
      status: 403,
      errorType: 'permission_error',
      message: 'Permission denied.',
    },
    kind: 'auth',
  },
  {
    name: '408 request timeout',
    behavior: {
      type: 'http-error',
      status: 408,
      errorType: 'timeout_error',
      message: 'Request timeout',
    },
    kind: 'timeout',
  },
  {
    name: '422 unprocessable',
    behavior: {
      type: 'http-error',
      status: 422,
      errorType: 'invalid_request_error',
      message: 'Invalid value for temperature.',
    },
    kind: 'invalid_request',
  },
  {
    name: '400 max_tokens above the model maximum',
    behavior: {
      type: 'http-error',
      status: 400,
      errorType: 'invalid_request_error',
      message:
        'max_tokens: 128000 > 64000, which is the maximum allowed number of output tokens for claude-test',
    },
    kind: 'invalid_request',
  },
  {
    name: '400 unpaired tool_use',
    behavior: {
      type: 'http-error',
      status: 400,
      errorType: 'invalid_request_error',
      message:
        'messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    },
    kind: 'invalid_request',
  },
  {
    name: '502 nginx HTML page instead of a JSON body',
    behavior: {
      type: 'http-error',
      status: 502,
      body: '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n',
      headers: { 'content-type': 'text/html' },
    },
    kind: 'server_error',
  },
  {
    name: '524 Cloudflare HTML page instead of a JSON body',
    behavior: {
      type: 'http-error',
      status: 524,
      body: '<!DOCTYPE html>\n<html class="no-js" lang="en-US">\n<head>\n<title>api.example.com | 524: A timeout occurred</title>\n</head>\n<body>\n<span class="inline-block">A timeout occurred</span>\n<span class="code-label">Error code 524</span>\n</body>\n</html>',
      headers: { 'content-type': 'text/html' },
    },
    kind: 'server_error',
  },
  {
    name: '400 content filtering policy',
    behavior: {
      type: 'http-error',
      status: 400,
      errorType: 'invalid_request_error',
      message: 'Output blocked by content filtering policy',
      openai: { code: 'content_filter' },
    },
    kind: 'content_policy',
  },
];

describe.each(MATRIX_APIS.flatMap((api) => [[api, false] as const, [api, true] as const]))(
  'real SDK, %s, stream=%s',
  (api: MatrixApi, stream: boolean) => {
    it.each(HTTP_CASES.map((testCase) => [testCase.name, testCase] as const))(
      'HTTP %s',
      async (_name, testCase) => {
        mock.enqueue(testCase.behavior);
        const error = await captureError(() => callMock(mock, api, { stream }));
        const result = classifyError(error);
        expect(result.kind).toBe(testCase.kind);
        expect(result.status).toBeGreaterThanOrEqual(400);
        expect(result.retryAfterMs).toBe(testCase.retryAfterMs);
        expect(result.cooldownMs).toBe(testCase.cooldownMs);
      },
    );

    it('reset before headers → connection (SDK "Connection error." with an undici cause)', async () => {
      mock.enqueue({ type: 'reset-before-headers' });
      const error = await captureError(() => callMock(mock, api, { stream }));
      expect(error).toMatchObject({ message: 'Connection error.' });
      const result = classifyError(error);
      expect(result.kind).toBe('connection');
      expect(result.code).toBe('UND_ERR_SOCKET');
    });

    it('hang with a short SDK timeout → timeout ("Request timed out.")', async () => {
      mock.enqueue({ type: 'hang' });
      const error = await captureError(() => callMock(mock, api, { stream, timeout: 150 }));
      expect(error).toMatchObject({ message: 'Request timed out.' });
      expect(classifyError(error).kind).toBe('timeout');
    });

    it('hang, then the caller aborts → caller_abort with the signal, provider_abort without', async () => {
      mock.enqueue({ type: 'hang' });
      const controller = new AbortController();
      const pending = captureError(() =>
        callMock(mock, api, { stream, signal: controller.signal }),
      );
      await untilRequests(mock, 1);
      controller.abort();
      const error = await pending;
      expect(error).toMatchObject({ message: 'Request was aborted.' });
      expect(classifyError(error, { signal: controller.signal }).kind).toBe('caller_abort');
      expect(classifyError(error, { signal: new AbortController().signal }).kind).toBe(
        'provider_abort',
      );
      expect(classifyError(error).kind).toBe('provider_abort');
    });

    if (!stream) {
      it('reset after half a JSON body → connection (TypeError: terminated, undici cause)', async () => {
        mock.enqueue({ type: 'reset-after-chunks', chunks: 1 });
        const error = await captureError(() => callMock(mock, api, { stream }));
        expect(error).toMatchObject({ name: 'TypeError', message: 'terminated' });
        expect(classifyError(error)).toMatchObject({ kind: 'connection', code: 'UND_ERR_SOCKET' });
      });

      it('half a JSON body, then a clean end → connection (SyntaxError from JSON.parse)', async () => {
        mock.enqueue({ type: 'truncated-stream' });
        const error = await captureError(() => callMock(mock, api, { stream }));
        expect(error).toBeInstanceOf(SyntaxError);
        expect(classifyError(error).kind).toBe('connection');
      });

      it('stream-error on a non-streaming request → its HTTP status error', async () => {
        mock.enqueue({ type: 'stream-error', errorType: 'overloaded_error' });
        const error = await captureError(() => callMock(mock, api, { stream }));
        expect(classifyError(error)).toMatchObject({ kind: 'overloaded', status: 529 });
      });
      return;
    }

    it('reset after chunks, raw stream → connection (TypeError: terminated, undici cause)', async () => {
      mock.enqueue({ type: 'reset-after-chunks', chunks: 2 });
      const error = await captureError(() => callMock(mock, api, { stream, raw: true }));
      expect(error).toMatchObject({ name: 'TypeError', message: 'terminated' });
      expect(classifyError(error)).toMatchObject({ kind: 'connection', code: 'UND_ERR_SOCKET' });
    });

    it('reset after chunks, SDK stream helper → connection', async () => {
      mock.enqueue({ type: 'reset-after-chunks', chunks: 2 });
      const error = await captureError(() => callMock(mock, api, { stream }));
      expect(error).toMatchObject({ message: 'terminated' });
      expect(classifyError(error).kind).toBe('connection');
    });

    it.each([
      ['overloaded_error', 'Overloaded', 'overloaded'],
      ['rate_limit_error', 'Rate limited', 'rate_limit'],
      ['api_error', 'Internal server error', 'server_error'],
    ] as const)('in-stream %s error event → %s', async (errorType, message, kind) => {
      mock.enqueue({ type: 'stream-error', afterChunks: 1, errorType, message });
      const error = await captureError(() => callMock(mock, api, { stream }));
      const result = classifyError(error);
      expect(result.kind).toBe(kind);
      expect(result.code).toBe(errorType);
    });

    it('stall after a chunk, then the caller aborts → caller_abort', async () => {
      mock.enqueue({ type: 'stall', afterChunks: 1 });
      const controller = new AbortController();
      const error = await captureError(() =>
        callMock(mock, api, {
          stream,
          signal: controller.signal,
          onFirstEvent: () => controller.abort(),
        }),
      );
      expect(classifyError(error, { signal: controller.signal }).kind).toBe('caller_abort');
      expect(classifyError(error).kind).toBe('provider_abort');
    });

    it('stall, then a transport stall timer aborts the SDK → its keelKind timeout wins', async () => {
      mock.enqueue({ type: 'stall', afterChunks: 1 });
      const caller = new AbortController();
      const stallTimer = new AbortController();
      const sdkError = await captureError(() =>
        callMock(mock, api, {
          stream,
          signal: stallTimer.signal,
          onFirstEvent: () => stallTimer.abort(),
        }),
      );
      // What a transport throws when its own stall timer fired (CONTRIBUTING.md, keelKind).
      const stall = keelError({
        name: 'TransportTimeoutError',
        keelKind: 'timeout',
        message: 'no stream event for 30000 ms',
        cause: sdkError,
      });
      expect(classifyError(stall, { signal: caller.signal }).kind).toBe('timeout');
      expect(classifyError(sdkError, { signal: caller.signal }).kind).toBe('provider_abort');
    });

    if (api === 'openai-responses') return;

    it('in-stream overloaded_error event on the raw stream → overloaded', async () => {
      mock.enqueue({
        type: 'stream-error',
        afterChunks: 1,
        errorType: 'overloaded_error',
        message: 'Overloaded',
      });
      const error = await captureError(() => callMock(mock, api, { stream, raw: true }));
      expect(classifyError(error)).toMatchObject({ kind: 'overloaded', code: 'overloaded_error' });
    });

    it('truncated stream (no terminal event) → connection', async () => {
      mock.enqueue({ type: 'truncated-stream', chunks: 2 });
      const error = await captureError(() => callMock(mock, api, { stream }));
      expect(classifyError(error).kind).toBe('connection');
    });
  },
);

describe('OpenAI Responses in-stream errors are events, not throws, on raw iteration', () => {
  it('classifies the raw `error` and `response.failed` events', async () => {
    const { default: OpenAI } = await import('openai');
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: mock.openaiBaseUrl, maxRetries: 0 });
    mock.enqueue({
      type: 'stream-error',
      afterChunks: 1,
      errorType: 'overloaded_error',
      message: 'Overloaded',
    });
    const stream = await client.responses.create({
      model: 'gpt-test',
      input: 'hello',
      stream: true,
    });
    const failures: unknown[] = [];
    for await (const event of stream) {
      if (event.type === 'error' || event.type === 'response.failed') failures.push(event);
    }
    expect(failures.length).toBeGreaterThan(0);
    for (const event of failures) expect(classifyError(event).kind).toBe('overloaded');
  });
});
