import type { TurnEvent, Usage } from '@keel/spec';
import {
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { CallInfo } from './call-registry';

export interface TurnTracerOptions {
  /** The running compatible call of a session id, if it is one (`CallRegistry.get`). */
  callOf?: (sessionId: string) => CallInfo | undefined;
}

/**
 * Turns turn events into OpenTelemetry spans following the GenAI semantic conventions: one
 * `invoke_agent keel` span per turn and one `chat {model}` CLIENT span per attempt, with provider,
 * model, profile, error kind and decision. The turn span names its API (`keel.api`: `sessions`,
 * `openai`, `anthropic`) and, for a compatible call, its route (`keel.route`) and call id instead
 * of a conversation. A no-op until the application registers an SDK.
 */
export function createTurnTracer(
  tracer: Tracer = trace.getTracer('@keel/gateway'),
  options: TurnTracerOptions = {},
) {
  const turns = new Map<string, Span>();
  const attempts = new Map<string, Span>();

  const endAttempt = (turnId: string, at: number) => {
    attempts.get(turnId)?.end(at);
    attempts.delete(turnId);
  };

  return function observe(event: TurnEvent): void {
    switch (event.type) {
      case 'turn-start': {
        const call = options.callOf?.(event.sessionId);
        const span = tracer.startSpan('invoke_agent keel', {
          kind: SpanKind.INTERNAL,
          startTime: event.at,
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.name': 'keel',
            ...(call === undefined
              ? { 'gen_ai.conversation.id': event.sessionId, 'keel.api': 'sessions' }
              : {
                  'keel.call_id': event.sessionId,
                  'keel.api': call.api,
                  'keel.route': call.route,
                }),
            'keel.turn_id': event.turnId,
            'keel.message_id': event.messageId,
          },
        });
        turns.set(event.turnId, span);
        return;
      }
      case 'attempt-start': {
        endAttempt(event.turnId, event.at);
        const parent = turns.get(event.turnId);
        const span = tracer.startSpan(
          `chat ${event.target.model}`,
          {
            kind: SpanKind.CLIENT,
            startTime: event.at,
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.provider.name': event.target.providerId,
              'gen_ai.request.model': event.target.model,
              'keel.profile_id': event.target.profileId,
              'keel.attempt': event.attempt,
              'keel.probe': event.probe,
            },
          },
          parent === undefined ? context.active() : trace.setSpan(context.active(), parent),
        );
        attempts.set(event.turnId, span);
        return;
      }
      case 'model-event':
        if (event.event.type === 'usage')
          attempts.get(event.turnId)?.setAttributes(usageAttributes(event.event));
        return;
      case 'attempt-error': {
        const span = attempts.get(event.turnId);
        span?.setAttribute('error.type', event.kind);
        if (event.status !== undefined)
          span?.setAttribute('http.response.status_code', event.status);
        span?.setStatus({ code: SpanStatusCode.ERROR, message: event.kind });
        return;
      }
      case 'decision':
        attempts.get(event.turnId)?.setAttribute('keel.decision', event.label);
        turns
          .get(event.turnId)
          ?.addEvent(
            'keel.decision',
            { 'keel.decision': event.label, 'keel.reason': event.reason },
            event.at,
          );
        endAttempt(event.turnId, event.at);
        return;
      case 'turn-end': {
        // The last attempt's usage, in case its provider's usage event was not seen.
        const last = event.outcome.attempts.at(-1)?.usage;
        if (last !== undefined) attempts.get(event.turnId)?.setAttributes(usageAttributes(last));
        endAttempt(event.turnId, event.at);
        const span = turns.get(event.turnId);
        turns.delete(event.turnId);
        if (span === undefined) return;
        span.setAttribute('keel.outcome', event.outcome.kind);
        if (event.outcome.usage !== undefined)
          span.setAttributes(usageAttributes(event.outcome.usage));
        if (event.outcome.model !== undefined)
          span.setAttribute('gen_ai.response.model', event.outcome.model);
        if (event.outcome.errorKind !== undefined) {
          span.setAttribute('error.type', event.outcome.errorKind);
          if (event.outcome.kind !== 'reply')
            span.setStatus({ code: SpanStatusCode.ERROR, message: event.outcome.errorKind });
        }
        span.end(event.at);
        return;
      }
      default:
        return;
    }
  };
}

/**
 * The GenAI usage attributes: input tokens include the cached ones, whose reads and writes are
 * also given apart.
 */
function usageAttributes(usage: Usage): Record<string, number> {
  return {
    'gen_ai.usage.input_tokens': usage.inputTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
    ...(usage.cacheReadTokens === undefined
      ? {}
      : { 'gen_ai.usage.cache_read.input_tokens': usage.cacheReadTokens }),
    ...(usage.cacheWriteTokens === undefined
      ? {}
      : { 'gen_ai.usage.cache_creation.input_tokens': usage.cacheWriteTokens }),
  };
}
