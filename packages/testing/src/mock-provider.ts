import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { anthropicWire } from './anthropic-wire';
import { defaultMockReply, estimateTokens } from './default-mock-reply';
import { buildErrorResponse } from './error-response';
import { isPrefill } from './is-prefill';
import { createMockChaos, emptyChaosStats } from './mock-chaos';
import { demoBehavior } from './mock-demo-model';
import { mockFaults } from './mock-faults';
import type {
  MockApi,
  MockBehavior,
  MockProvider,
  MockProviderOptions,
  MockScriptEntry,
} from './mock-provider-types';
import { createMockQueue } from './mock-queue';
import { openaiChatWire } from './openai-chat-wire';
import { openaiResponsesWire } from './openai-responses-wire';
import { readRequest } from './read-request';
import { createRequestLog } from './request-log';
import { respondWithBehavior } from './respond-with-behavior';
import { createResponseWriter } from './response-writer';
import { toolPairingProblem } from './tool-pairing-check';
import type { WireFormat } from './wire-format';

const wires: Record<MockApi, WireFormat> = {
  'anthropic-messages': anthropicWire,
  'openai-chat': openaiChatWire,
  'openai-responses': openaiResponsesWire,
};

/**
 * Start a loopback HTTP server on 127.0.0.1 that speaks OpenAI Chat Completions, OpenAI
 * Responses and Anthropic Messages, and answers each request from a scripted queue of
 * behaviours (answers, HTTP errors, resets, in-stream errors, hangs, stalls).
 */
export async function createMockProvider(options: MockProviderOptions = {}): Promise<MockProvider> {
  const chaos = options.chaos === undefined ? undefined : createMockChaos(options.chaos);
  const queue = createMockQueue();
  queue.add(options.script ?? []);
  const log = createRequestLog();
  const defaultReply = options.defaultReply ?? defaultMockReply;
  const latencyMs = options.latencyMs ?? 0;
  let requestCounter = 0;
  let connectionCount = 0;
  let toolCounter = 0;
  const nextToolNumber = () => {
    toolCounter += 1;
    return toolCounter;
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { record, pathname, invalidJson, tools } = await readRequest(
      request,
      connections.get(request.socket) ?? 0,
    );
    const { api, method } = record;
    log.push(record);
    const writer = createResponseWriter(response);
    requestCounter += 1;
    const requestNumber = requestCounter;
    const requestId = `req_mock_${requestNumber}`;

    if (api === 'other') {
      // `HEAD /api/hello` is the Claude Code CLI's connectivity check.
      const known =
        (method === 'GET' || method === 'HEAD') && (pathname === '/' || pathname === '/api/hello');
      if (known) {
        writer.head(200, { 'content-type': 'text/plain; charset=utf-8' });
        writer.end(method === 'HEAD' ? undefined : 'keel mock provider\n');
        return;
      }
      record.behavior = 'http-error';
      writer.head(404, { 'content-type': 'application/json', 'x-request-id': requestId });
      writer.end(
        JSON.stringify({
          type: 'error',
          error: { type: 'not_found_error', message: `Not found: ${method} ${pathname}` },
        }),
      );
      return;
    }
    const wireApi: MockApi = api === 'count-tokens' ? 'anthropic-messages' : api;
    const fail = (behavior: Extract<MockBehavior, { type: 'http-error' }>) => {
      record.behavior = 'http-error';
      const error = buildErrorResponse(wireApi, behavior, requestId);
      writer.head(error.status, error.headers);
      writer.end(error.body);
    };
    if (options.requireApiKey !== undefined && record.apiKey !== options.requireApiKey) {
      fail(mockFaults.unauthorized({ apiKey: record.apiKey ?? '' }));
      return;
    }
    if (invalidJson) {
      fail({ type: 'http-error', status: 400, message: 'The request body is not valid JSON.' });
      return;
    }
    const pairing =
      options.strict === true ? toolPairingProblem(wireApi, record.messages) : undefined;
    if (pairing !== undefined) {
      // As Anthropic and OpenAI do: a 400 invalid_request_error, whatever the queue holds.
      record.strictRejection = pairing.message;
      fail({
        type: 'http-error',
        status: 400,
        errorType: 'invalid_request_error',
        message: pairing.message,
        ...(wireApi === 'anthropic-messages'
          ? {}
          : {
              body: {
                error: {
                  message: pairing.message,
                  type: 'invalid_request_error',
                  param: pairing.param,
                  code: null,
                },
              },
            }),
      });
      return;
    }
    if (api === 'count-tokens') {
      writer.head(200, { 'content-type': 'application/json', 'request-id': requestId });
      writer.end(
        JSON.stringify({
          input_tokens: estimateTokens([record.system, record.messages, tools]),
        }),
      );
      return;
    }
    const target = {
      api,
      model: record.model,
      apiKey: record.apiKey,
      prefill: isPrefill(record.messages),
    };
    let behavior = queue.take(target);
    if (behavior === undefined) {
      const injection = chaos?.decide(target);
      if (injection !== undefined) record.chaos = injection;
      behavior = injection?.behavior;
    }
    const defaultText = defaultReply(record);
    behavior ??= options.demo ? demoBehavior(api, record, defaultText) : { type: 'ok' };
    record.behavior = behavior.type;
    if (latencyMs > 0 && !(await writer.wait(latencyMs))) return;
    await respondWithBehavior({
      api,
      wire: wires[api],
      writer,
      request: record,
      behavior,
      requestId,
      defaultText,
      requestNumber,
      nextToolNumber,
    });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          type: 'error',
          error: { type: 'api_error', message: `mock provider failure: ${String(error)}` },
        }),
      );
    });
  });

  // Each TCP connection's number, in the order they were accepted (`RecordedRequest.connection`).
  const connections = new WeakMap<Socket, number>();
  server.on('connection', (socket: Socket) => {
    connectionCount += 1;
    connections.set(socket, connectionCount);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('mock provider: server has no TCP address');
  }
  const url = `http://127.0.0.1:${address.port}`;
  let closing: Promise<void> | undefined;

  return {
    url,
    port: address.port,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests: log.requests,
    waitForRequests(count, waitOptions) {
      return log.waitFor(count, waitOptions?.signal);
    },
    enqueue(...entries: Array<MockScriptEntry | MockBehavior>) {
      queue.add(entries);
    },
    pending() {
      return queue.size();
    },
    reset() {
      queue.clear();
      log.clear();
      requestCounter = 0;
      toolCounter = 0;
      chaos?.reset();
    },
    chaosStats() {
      return chaos?.stats() ?? emptyChaosStats();
    },
    close() {
      if (closing === undefined) {
        closing = new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      }
      return closing;
    },
  };
}
