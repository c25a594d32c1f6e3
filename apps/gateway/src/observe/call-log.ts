import type { ErrorKind, TurnEvent, TurnOutcomeKind, Usage } from '@keel/spec';
import type { CallInfo } from './call-registry';
import { type PriceBook, turnCost } from './cost-of';

/**
 * One compatible call as the console lists it: the client's wire and route, when it ran, how it
 * ended, the model that answered, its usage and cost, and the decisions taken on the way.
 */
export interface CallSummary {
  callId: string;
  turnId: string;
  api: CallInfo['api'];
  route: string;
  startedAt: number;
  endedAt?: number;
  outcome?: TurnOutcomeKind;
  /** `providerId/model` that answered. */
  model?: string;
  errorKind?: ErrorKind;
  usage?: Usage;
  /** USD, when every model that reported usage has prices (`models.settings[…].prices`). */
  costUsd?: number;
  /** Attempts, skipped ones included. */
  attempts: number;
  /** Attempts that sent a request. */
  requests: number;
  /** Decision labels, in order. */
  decisions: string[];
}

export interface CallLog {
  observe(event: TurnEvent): void;
  /** The most recent calls first. */
  list(limit?: number): CallSummary[];
  get(callId: string): CallSummary | undefined;
}

export interface CallLogOptions {
  /** The running call of a session id (`CallRegistry.get`): only those are listed. */
  callOf: (sessionId: string) => CallInfo | undefined;
  prices?: PriceBook;
  /** Calls kept (the oldest are forgotten first); default 1000. */
  limit?: number;
}

/**
 * The recent compatible calls, built from their turn events: bounded by count (a summary is a few
 * hundred bytes; its decisions are bounded by the call's request ceiling).
 */
export function createCallLog(options: CallLogOptions): CallLog {
  const limit = options.limit ?? 1000;
  const prices: PriceBook = options.prices ?? new Map();
  const calls = new Map<string, CallSummary>();
  return {
    observe(event) {
      if (event.type === 'turn-start') {
        const info = options.callOf(event.sessionId);
        if (info === undefined) return;
        calls.set(event.sessionId, {
          callId: event.sessionId,
          turnId: event.turnId,
          api: info.api,
          route: info.route,
          startedAt: event.at,
          attempts: 0,
          requests: 0,
          decisions: [],
        });
        if (calls.size > limit) {
          const oldest = calls.keys().next().value;
          if (oldest !== undefined) calls.delete(oldest);
        }
        return;
      }
      const call = calls.get(event.sessionId);
      if (call === undefined || call.turnId !== event.turnId) return;
      if (event.type === 'decision') call.decisions.push(event.label);
      if (event.type !== 'turn-end') return;
      const { outcome } = event;
      call.endedAt = event.at;
      call.outcome = outcome.kind;
      call.attempts = outcome.attempts.length;
      call.requests = outcome.attempts.filter((attempt) => attempt.requestSent).length;
      if (outcome.model !== undefined) call.model = outcome.model;
      if (outcome.errorKind !== undefined) call.errorKind = outcome.errorKind;
      if (outcome.usage !== undefined) call.usage = outcome.usage;
      const cost = turnCost(outcome, prices);
      if (cost !== undefined) call.costUsd = cost;
    },
    list(count = limit) {
      return [...calls.values()].reverse().slice(0, count);
    },
    get: (callId) => calls.get(callId),
  };
}
