import { createServer, type Server } from 'node:http';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';

// The built gateway exports its turn and attempt spans over OTLP/HTTP when the standard
// OpenTelemetry environment is set. A loopback receiver decodes what arrives (OTLP JSON).

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: OtlpValue }>;
  events?: Array<{ name: string; attributes?: Array<{ key: string; value: OtlpValue }> }>;
  status?: { code?: number };
}
interface ReceivedSpan extends OtlpSpan {
  service: string | undefined;
  path: string;
}

/** An OTLP/HTTP receiver: every span of every `POST`, with its resource's service name. */
function createReceiver() {
  const spans: ReceivedSpan[] = [];
  const waiters: Array<() => void> = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const payload = JSON.parse(body) as {
        resourceSpans: Array<{
          resource?: { attributes?: Array<{ key: string; value: OtlpValue }> };
          scopeSpans: Array<{ spans: OtlpSpan[] }>;
        }>;
      };
      for (const resourceSpans of payload.resourceSpans) {
        const service = resourceSpans.resource?.attributes?.find(
          (attribute) => attribute.key === 'service.name',
        )?.value.stringValue;
        for (const scope of resourceSpans.scopeSpans) {
          for (const span of scope.spans) spans.push({ ...span, service, path: request.url ?? '' });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const wake of waiters.splice(0)) wake();
    });
  });
  return {
    spans,
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    },
    /** Resolves once the spans received so far satisfy `done`. */
    async waitFor(done: (all: ReceivedSpan[]) => boolean): Promise<void> {
      while (!done(spans)) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function attributes(span: OtlpSpan | undefined): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const { key, value } of span?.attributes ?? []) {
    result[key] =
      value.stringValue ??
      (value.intValue === undefined ? undefined : Number(value.intValue)) ??
      value.boolValue ??
      value.doubleValue;
  }
  return result;
}

let mock: MockProvider;
let receiver: ReturnType<typeof createReceiver>;
let endpoint: string;
let gateway: GatewayProcess | undefined;

beforeAll(async () => {
  mock = await createMockProvider();
  receiver = createReceiver();
  endpoint = await receiver.listen();
});
afterEach(async () => {
  await gateway?.stop();
  if (gateway !== undefined) await removeDir(gateway.dir);
  gateway = undefined;
});
afterAll(async () => {
  await mock?.close();
  await receiver?.close();
});

const config = (prefix: string) => ({
  sessionsDir: 'sessions',
  providers: [
    {
      id: 'otel-a',
      api: 'anthropic-messages',
      baseUrl: mock.anthropicBaseUrl,
      profiles: [{ id: 'main', apiKey: 'sk-keeltest-otel-a' }],
    },
    {
      id: 'otel-o',
      api: 'openai-chat',
      baseUrl: mock.openaiBaseUrl,
      profiles: [{ id: 'main', apiKey: 'sk-keeltest-otel-o' }],
    },
  ],
  models: { primary: `otel-a/${prefix}-a`, fallbacks: [`otel-o/${prefix}-o`] },
  retry: { maxRetries: 0 },
});

const turnOf = (turnId: string) => (span: ReceivedSpan) =>
  span.name === 'invoke_agent keel' && attributes(span)['keel.turn_id'] === turnId;

describe('OTLP/HTTP export', () => {
  it('sends the turn span and its attempt spans, with GenAI attributes and the decision', async () => {
    gateway = await startGateway({
      config: config('otel'),
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_SERVICE_NAME: 'keel-otel-test',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
    });
    expect(
      gateway.logs.find((line) => line['msg'] === 'exporting traces (OTLP/HTTP)'),
    ).toMatchObject({ endpoint: `${endpoint}/v1/traces` });
    // The primary is overloaded: a fallback decision, then the fallback answers.
    mock.enqueue(
      { behavior: { type: 'http-error', status: 529 }, match: { model: 'otel-a' } },
      {
        behavior: {
          type: 'ok',
          text: 'from the fallback',
          usage: { inputTokens: 7, outputTokens: 3 },
        },
        match: { model: 'otel-o' },
      },
    );
    const answer = await sendMessage(gateway, 'traced', { text: 'hello' });
    expect(answer.body).toMatchObject({ outcome: 'reply', text: 'from the fallback' });
    const turnId = String(answer.body['turnId']);
    await receiver.waitFor((all) => all.some(turnOf(turnId)));

    const turn = receiver.spans.find(turnOf(turnId));
    const children = receiver.spans.filter((span) => span.parentSpanId === turn?.spanId);
    expect(turn).toMatchObject({ service: 'keel-otel-test', path: '/v1/traces', kind: 1 });
    expect(attributes(turn)).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': 'traced',
      'keel.outcome': 'reply',
      'gen_ai.response.model': 'otel-o/otel-o',
    });
    expect(turn?.events?.map((event) => event.name)).toContain('keel.decision');

    expect(children.map((span) => span.name)).toEqual(['chat otel-a', 'chat otel-o']);
    for (const child of children) {
      expect(child.traceId).toBe(turn?.traceId);
      expect(child.kind).toBe(3); // CLIENT
    }
    const [failed, answered] = children;
    expect(attributes(failed)).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'otel-a',
      'gen_ai.request.model': 'otel-a',
      'error.type': 'overloaded',
      'http.response.status_code': 529,
      'keel.decision': 'fallback_model',
    });
    expect(failed?.status?.code).toBe(2); // ERROR
    expect(attributes(answered)).toMatchObject({
      'gen_ai.provider.name': 'otel-o',
      'gen_ai.request.model': 'otel-o',
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 3,
    });
  });

  it('flushes what is buffered when the gateway stops', async () => {
    gateway = await startGateway({
      config: config('flush'),
      // Batches would wait ten minutes: only the shutdown sends them.
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '600000' },
    });
    mock.enqueue({ behavior: { type: 'ok', text: 'kept' }, match: { model: 'flush-a' } });
    const answer = await sendMessage(gateway, 'flushed', { text: 'hello' });
    const turnId = String(answer.body['turnId']);
    expect(receiver.spans.some(turnOf(turnId))).toBe(false);
    expect(await gateway.stop('SIGTERM')).toBe(0);
    const turn = receiver.spans.find(turnOf(turnId));
    expect(turn?.service).toBe('keel-gateway');
    expect(receiver.spans.filter((span) => span.parentSpanId === turn?.spanId)).toHaveLength(1);
  });

  it('without the OpenTelemetry environment, nothing is exported', async () => {
    const before = receiver.spans.length;
    gateway = await startGateway({ config: config('none') });
    mock.enqueue({ behavior: { type: 'ok', text: 'quiet' }, match: { model: 'none-a' } });
    expect((await sendMessage(gateway, 'untraced', { text: 'hi' })).body['outcome']).toBe('reply');
    expect(await gateway.stop('SIGTERM')).toBe(0);
    expect(gateway.logs.some((line) => line['msg'] === 'exporting traces (OTLP/HTTP)')).toBe(false);
    expect(receiver.spans.length).toBe(before);
  });
});
