import { randomUUID } from 'node:crypto';
import type { CallOutcome, ModelRequest, TurnEvent } from '@keel/spec';
import type { GatewayRuntime } from '../compose/create-runtime';
import type { KeyTicket } from '../keys/create-keyring';
import { createIdempotencyCache, type IdempotencyCache } from './idempotency-cache';
import type { ResolvedRoute } from './resolve-route';

/** The client wires the compatible endpoints speak. */
export type CompatWire = 'openai' | 'anthropic';

export interface CompatCall {
  wire: CompatWire;
  route: ResolvedRoute;
  /** The client's conversation, translated to the spec's request (no `model`: the route decides). */
  request: Omit<ModelRequest, 'model'>;
  signal?: AbortSignal;
  /** The call's events as they happen (text deltas, discards, decisions, the end). */
  onEvent?: (event: TurnEvent) => void;
  /** The client key making the call (its usage is counted against it). */
  key?: string | undefined;
  /** The request's reservation under its key's limits: the call names it with its id. */
  ticket?: KeyTicket | undefined;
}

/** What every compatible endpoint shares: the runtime, the repeat cache, one way to run a call. */
export interface CompatContext {
  readonly runtime: GatewayRuntime;
  /**
   * Answers by `Idempotency-Key` (scoped by the endpoint and the caller's credentials): a repeat
   * gets the first answer; only replies are kept.
   */
  readonly idempotency: IdempotencyCache<CallOutcome>;
  /**
   * Runs one stateless call through the orchestrator (a turn's retries, rotation, fallback,
   * breakers and decisions). Its events' `sessionId` is `<wire>-<uuid>`; nothing is stored.
   * While it runs, `runtime.calls` holds its wire and route for the observers.
   */
  call(call: CompatCall): Promise<CallOutcome>;
}

export function createCompatContext(runtime: GatewayRuntime): CompatContext {
  return {
    runtime,
    idempotency: createIdempotencyCache<CallOutcome>({
      ttlMs: runtime.config.compat.idempotencyTtlMs,
      keep: (outcome) => outcome.kind === 'reply',
    }),
    async call({ wire, route, request, signal, onEvent, key, ticket }) {
      const callId = `${wire}-${randomUUID()}`;
      if (ticket !== undefined) ticket.sessionId = callId;
      const forget = runtime.calls.begin(callId, {
        api: wire,
        route: route.name,
        ...(key === undefined ? {} : { key }),
      });
      try {
        return await runtime.orchestrator.runCall({
          request,
          route: { primary: route.primary, fallbacks: route.fallbacks },
          callId,
          ...(signal === undefined ? {} : { signal }),
          ...(onEvent === undefined ? {} : { onEvent }),
        });
      } finally {
        forget();
      }
    },
  };
}
