import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../src/config/config-schema';
import { createGateway, type Gateway } from '../src/create-gateway';

// The application's own SDK set-up, as a user would write it. No context manager is needed:
// the gateway parents each attempt span on its turn span explicitly.
const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
);

let mock: MockProvider;
let gateway: Gateway;
let dir: string;
const turns: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  mock = await createMockProvider();
  dir = await mkdtemp(join(tmpdir(), 'keel-otel-'));
  const config = configSchema.parse({
    sessionsDir: join(dir, 'sessions'),
    providers: [
      {
        id: 'ot-a',
        api: 'anthropic-messages',
        baseUrl: mock.anthropicBaseUrl,
        profiles: [{ id: 'key-1', apiKey: 'sk-keeltest-otel-a' }],
      },
      {
        id: 'ot-o',
        api: 'openai-chat',
        baseUrl: mock.openaiBaseUrl,
        profiles: [{ id: 'key-2', apiKey: 'sk-keeltest-otel-o' }],
      },
    ],
    models: { primary: 'ot-a/otel-a', fallbacks: ['ot-o/otel-o'] },
    retry: { maxRetries: 0 },
  });
  gateway = await createGateway({ config, logger: false });
  mock.enqueue(
    {
      behavior: { type: 'ok', text: 'first', usage: { inputTokens: 7, outputTokens: 3 } },
      match: { model: 'otel-a' },
    },
    { behavior: { type: 'http-error', status: 529 }, match: { model: 'otel-a' } },
    { behavior: { type: 'ok', text: 'from the fallback' }, match: { model: 'otel-o' } },
  );
  for (const text of ['one', 'two']) {
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/v1/sessions/otel/messages',
      payload: { text },
    });
    turns.push(response.json());
  }
});
afterAll(async () => {
  await gateway?.close();
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The gateway's own spans (the provider SDKs add spans of their own once an SDK is set up). */
const spans = () =>
  exporter.getFinishedSpans().filter((span) => span.instrumentationScope.name === '@keel/gateway');
const turnSpan = (turnId: unknown) =>
  spans().find(
    (span) => span.name === 'invoke_agent keel' && span.attributes['keel.turn_id'] === turnId,
  ) as ReadableSpan;
const attemptSpans = (parent: ReadableSpan) =>
  spans()
    .filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId)
    .sort((a, b) => Number(a.attributes['keel.attempt']) - Number(b.attributes['keel.attempt']));

describe('OpenTelemetry GenAI spans', () => {
  it('one invoke_agent span per turn', () => {
    expect(turns.map((turn) => turn['outcome'])).toEqual(['reply', 'reply']);
    expect(spans().filter((span) => span.name === 'invoke_agent keel')).toHaveLength(2);
    for (const turn of turns) {
      const span = turnSpan(turn['turnId']);
      expect(span.kind).toBe(SpanKind.INTERNAL);
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'keel',
        'gen_ai.conversation.id': 'otel',
        'keel.message_id': turn['messageId'],
        'keel.outcome': 'reply',
      });
    }
    // The turn's usage added up: the first turn's one attempt reported 7 in, 3 out.
    expect(turnSpan(turns[0]?.['turnId']).attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 3,
    });
  });

  it('one chat CLIENT span per attempt, parented to its turn', () => {
    const first = turnSpan(turns[0]?.['turnId']);
    const [only, ...none] = attemptSpans(first);
    expect(none).toEqual([]);
    expect(only?.name).toBe('chat otel-a');
    expect(only?.kind).toBe(SpanKind.CLIENT);
    expect(only?.spanContext().traceId).toBe(first.spanContext().traceId);
    expect(only?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'ot-a',
      'gen_ai.request.model': 'otel-a',
      'keel.profile_id': 'key-1',
      'keel.attempt': 1,
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 3,
    });
    expect(only?.attributes['error.type']).toBeUndefined();
    expect(only?.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('a failed attempt carries error.type and the decision taken after it', () => {
    const second = turnSpan(turns[1]?.['turnId']);
    expect(second.attributes['gen_ai.response.model']).toBe('ot-o/otel-o');
    const [failed, fallback, ...none] = attemptSpans(second);
    expect(none).toEqual([]);
    expect(failed?.name).toBe('chat otel-a');
    expect(failed?.attributes).toMatchObject({
      'gen_ai.provider.name': 'ot-a',
      'gen_ai.request.model': 'otel-a',
      'keel.profile_id': 'key-1',
      'error.type': 'overloaded',
      'http.response.status_code': 529,
      'keel.decision': 'fallback_model',
    });
    expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
    expect(fallback?.name).toBe('chat otel-o');
    expect(fallback?.attributes).toMatchObject({
      'gen_ai.provider.name': 'ot-o',
      'gen_ai.request.model': 'otel-o',
      'keel.profile_id': 'key-2',
      'keel.attempt': 2,
    });
    expect(fallback?.attributes['error.type']).toBeUndefined();
    expect(second.events.map((event) => event.attributes?.['keel.decision'])).toContain(
      'fallback_model',
    );
  });

  it('every span ended, none left open', () => {
    expect(spans().every((span) => span.ended)).toBe(true);
    expect(spans()).toHaveLength(5);
  });
});
