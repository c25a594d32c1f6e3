// The wire of a compatible call reaches the metrics and the spans through the registry alone:
// an id shaped like a call's but not registered counts as a session.
import type { TurnEvent, TurnOutcome } from '@keel/spec';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { createCallRegistry } from './call-registry';
import { createGatewayMetrics } from './metrics';
import { createTurnTracer } from './turn-tracer';

const target = { providerId: 'p', profileId: 'k', model: 'm' };

function turnEvents(sessionId: string, turnId: string): TurnEvent[] {
  const outcome: TurnOutcome = {
    kind: 'reply',
    text: 'hi',
    messageId: sessionId,
    turnId,
    attempts: [
      {
        attempt: 1,
        target,
        outcome: 'ok',
        requestSent: true,
        startedAt: 1,
        endedAt: 2,
        probe: false,
      },
    ],
  } as TurnOutcome;
  return [
    { sessionId, turnId, type: 'turn-start', at: 1, messageId: sessionId },
    { sessionId, turnId, type: 'turn-end', at: 2, outcome },
  ] as TurnEvent[];
}

describe('createCallRegistry', () => {
  it('knows a call while it runs and forgets it after', () => {
    const registry = createCallRegistry();
    const forget = registry.begin('openai-1', { api: 'openai', route: 'fast' });
    expect(registry.get('openai-1')).toEqual({ api: 'openai', route: 'fast' });
    expect(registry.apiOf('openai-1')).toBe('openai');
    expect(registry.apiOf('anthropic-2')).toBe('sessions');
    forget();
    expect(registry.get('openai-1')).toBeUndefined();
    expect(registry.apiOf('openai-1')).toBe('sessions');
  });

  it('labels turns and attempts with the api of the registry, not of the id', async () => {
    const registry = createCallRegistry();
    const metrics = createGatewayMetrics({
      queue: () => ({ runningTurns: 0, queuedTurns: 0 }),
      apiOf: registry.apiOf,
    });
    const forget = registry.begin('x-1', { api: 'anthropic', route: 'default' });
    for (const event of turnEvents('x-1', 't1')) metrics.observe(event);
    forget();
    // A session its client named like a call.
    for (const event of turnEvents('openai-0000', 't2')) metrics.observe(event);
    const text = await metrics.registry.metrics();
    expect(text).toContain('keel_turns_total{outcome="reply",api="anthropic"} 1');
    expect(text).toContain('keel_turns_total{outcome="reply",api="sessions"} 1');
    expect(text).not.toContain('api="openai"');
    expect(text).toContain(
      'keel_attempts_total{provider="p",model="m",result="ok",api="anthropic"} 1',
    );
    expect(text).toContain(
      'keel_attempts_total{provider="p",model="m",result="ok",api="sessions"} 1',
    );
  });

  it('names the api and the route on the turn span of a call', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const registry = createCallRegistry();
    const observe = createTurnTracer(provider.getTracer('test'), { callOf: registry.get });
    const forget = registry.begin('c-1', { api: 'openai', route: 'fast' });
    for (const event of turnEvents('c-1', 't1')) observe(event);
    forget();
    for (const event of turnEvents('s-1', 't2')) observe(event);
    const [call, session] = exporter.getFinishedSpans();
    expect(call?.attributes).toMatchObject({
      'keel.api': 'openai',
      'keel.route': 'fast',
      'keel.call_id': 'c-1',
    });
    expect(call?.attributes['gen_ai.conversation.id']).toBeUndefined();
    expect(session?.attributes).toMatchObject({
      'keel.api': 'sessions',
      'gen_ai.conversation.id': 's-1',
    });
    expect(session?.attributes['keel.route']).toBeUndefined();
  });
});
